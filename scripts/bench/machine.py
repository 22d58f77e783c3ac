"""machine.py - what the machine is, printed above the table and kept in the JSON."""

import glob
import json
import os
import platform
import shutil
import subprocess


def _read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def _cpuinfo():
    model, flags = None, set()
    fam = {}
    for ln in (_read("/proc/cpuinfo", "") or "").splitlines():
        for key in ("cpu family", "model", "stepping"):
            if ln.split(":")[0].strip() == key and key not in fam:
                fam[key] = ln.split(":", 1)[1].strip()
        if ln.startswith("model name") and model is None:
            model = ln.split(":", 1)[1].strip()
        elif ln.startswith("flags") and not flags:
            flags = set(ln.split(":", 1)[1].split())
    model = model or platform.processor() or "unknown"
    if "cpu family" in fam:
        model += " (family %s, model %s, stepping %s)" % (
            fam["cpu family"], fam.get("model", "?"), fam.get("stepping", "?"))
    return model, flags


def _cache_sizes():
    """Bytes of L1d, L2, L3 as CPU 0 sees them (sysfs)."""
    out = {}
    for d in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        level = _read(d + "/level")
        kind = _read(d + "/type")
        size = _read(d + "/size")
        if not level or not size or kind == "Instruction":
            continue
        mult = {"K": 1024, "M": 1 << 20, "G": 1 << 30}.get(size[-1], 1)
        n = int(size.rstrip("KMG")) * mult
        out["L%s" % level] = n
    return out


def _virt(flags):
    """'KVM guest', 'docker in a KVM guest', or None on bare metal."""
    vm = container = None
    if shutil.which("systemd-detect-virt"):
        for opt in ("--vm", "--container"):
            p = subprocess.run(["systemd-detect-virt", opt], capture_output=True, text=True)
            v = p.stdout.strip()
            if p.returncode == 0 and v and v != "none":
                if opt == "--vm":
                    vm = v
                else:
                    container = v
    if not vm and "hypervisor" in flags:
        vm = "hypervisor"
        p = subprocess.run(["lscpu"], capture_output=True, text=True) if shutil.which("lscpu") else None
        for ln in (p.stdout.splitlines() if p else []):
            if ln.startswith("Hypervisor vendor:"):
                vm = ln.split(":", 1)[1].strip()
    if vm:
        vm = {"kvm": "KVM", "qemu": "QEMU", "vmware": "VMware", "microsoft": "Hyper-V",
              "xen": "Xen", "amazon": "AWS Nitro (KVM)"}.get(vm.lower(), vm) + " guest"
    if container:
        return "%s container%s" % (container, " in a " + vm if vm else "")
    return vm


def describe(numalab):
    model, flags = _cpuinfo()
    topo = {}
    try:
        p = subprocess.run([numalab, "topology", "--json"], capture_output=True,
                           text=True, timeout=30)
        if p.returncode == 0:
            topo = json.loads(p.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        topo = {}
    nodes = len(glob.glob("/sys/devices/system/node/node[0-9]*")) or 1
    cpus = os.cpu_count()
    allowed = len(os.sched_getaffinity(0))
    cores = set()
    for c in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/topology"):
        cores.add((_read(c + "/physical_package_id"), _read(c + "/core_id")))
    packages = {p for p, _ in cores}
    virt = _virt(flags)
    load = os.getloadavg()
    m = {
        "cpu_model": model,
        "cpus": cpus,
        "cpus_allowed": allowed,
        "cores": len(cores) or cpus,
        "packages": len(packages) or 1,
        "nodes": nodes,
        "smt": (len(cores) or cpus) < cpus,
        "caches": _cache_sizes(),
        "avx2": "avx2" in flags,
        "avx512f": "avx512f" in flags,
        "vm": virt,
        "kernel": platform.release(),
        "thp": _read("/sys/kernel/mm/transparent_hugepage/enabled"),
        "governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        "loadavg_at_start": [round(x, 2) for x in load],
        "numalab_topology": topo.get("machine") if isinstance(topo, dict) else None,
    }
    return m


def headline(m):
    caches = ", ".join("%s %s" % (k, _kib(v)) for k, v in sorted(m["caches"].items()))
    isa = "AVX-512" if m["avx512f"] else ("AVX2" if m["avx2"] else "no AVX2")
    lines = [
        "machine: %s" % m["cpu_model"],
        "  %d CPU(s) (%d allowed), %d core(s), %d package(s), %d NUMA node(s), SMT %s, %s; caches per core/shared: %s"
        % (m["cpus"], m["cpus_allowed"], m["cores"], m["packages"], m["nodes"],
           "on" if m["smt"] else "off", isa, caches),
        "  %s; Linux %s; THP %s; governor %s; load average at start %s"
        % ("virtual: %s" % m["vm"] if m["vm"] else "bare metal (no hypervisor seen)",
           m["kernel"], _thp(m["thp"]), m["governor"] or "not readable",
           " ".join("%.2f" % x for x in m["loadavg_at_start"])),
    ]
    return "\n".join(lines)


def _kib(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%d MiB" % (n >> 20)
    return "%d KiB" % (n >> 10)


def _thp(s):
    if not s:
        return "unknown"
    for w in s.split():
        if w.startswith("["):
            return w.strip("[]")
    return s
