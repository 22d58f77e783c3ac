"""sse.py - a lean Server-Sent Events client on raw asyncio sockets, for the bench.

HTTP/1.1 like a browser's EventSource (chunked transfer decoded here), one
connection per subscriber, and as little work per event as possible so
that ten thousand of them in one Python process stay cheap: each event is
split into its fields, its seq checked against the one before, and only
what the caller asked to keep is kept.
"""

import asyncio
import json
import time

FINAL = ("done", "failed", "cancelled", "interrupted")


class Subscriber:
    """One SSE connection to /api/runs/ID/events.

    After run(): events (number received), in_order (every seq was the
    one before plus one, starting at 1), final (the final event's type or
    None), error (text or None), t_connected / t_first / t_end (monotonic
    ns), and, when keep is set, kept: a list of (arrival_ns, seq, type,
    data) for the event types in keep ("*" for all).
    """

    def __init__(self, host, port, path, keep=(), hook=None, source=None,
                 gate=None):
        self.host, self.port, self.path = host, port, path
        self.source = source  # the local address to connect from, or None
        self.gate = gate  # an asyncio.Semaphore held while connecting, or None
        self.hook = hook  # called as hook(type, arrival_ns) for each event
        self.keep = set(keep)
        self.kept = []
        self.events = 0
        self.last_seq = 0
        self.in_order = True
        self.final = None
        self.error = None
        self.status = None
        self.t_connected = self.t_first = self.t_end = None
        self.types = {}

    async def run(self, connected=None):
        try:
            local = (self.source, 0) if self.source else None
            if self.gate:
                async with self.gate:
                    reader, writer = await asyncio.open_connection(
                        self.host, self.port, local_addr=local)
            else:
                reader, writer = await asyncio.open_connection(
                    self.host, self.port, local_addr=local)
        except OSError as e:
            self.error = "connect: %s" % e
            if connected:
                connected.set_result(False) if not connected.done() else None
            return self
        try:
            writer.write(("GET %s HTTP/1.1\r\nHost: %s:%d\r\n"
                          "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
                          % (self.path, self.host, self.port)).encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            self.t_connected = time.monotonic_ns()
            if connected and not connected.done():
                connected.set_result(True)
            lines = head.decode("latin-1").split("\r\n")
            self.status = int(lines[0].split()[1])
            headers = {}
            for ln in lines[1:]:
                if ":" in ln:
                    k, v = ln.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            if self.status != 200:
                self.error = "HTTP %d" % self.status
                return self
            chunked = "chunked" in headers.get("transfer-encoding", "")
            await self._body(reader, chunked)
        except (OSError, asyncio.IncompleteReadError, ValueError) as e:
            if self.final is None:
                self.error = "%s: %s" % (type(e).__name__, e)
        finally:
            self.t_end = time.monotonic_ns()
            if connected and not connected.done():
                connected.set_result(False)
            writer.close()
        if self.final is None and self.error is None:
            self.error = "the stream ended before the final event"
        return self

    async def _body(self, reader, chunked):
        buf = b""
        while self.final is None:
            if chunked:
                size_line = await reader.readuntil(b"\r\n")
                size = int(size_line.split(b";")[0], 16)
                if size == 0:
                    return
                data = await reader.readexactly(size + 2)
                data = data[:-2]
            else:
                data = await reader.read(65536)
                if not data:
                    return
            now = time.monotonic_ns()
            buf += data
            while True:
                i = buf.find(b"\n\n")
                if i < 0:
                    break
                block, buf = buf[:i], buf[i + 2:]
                self._event(block, now)

    def _event(self, block, now):
        seq = None
        typ = "message"
        data = None
        for ln in block.split(b"\n"):
            if ln.startswith(b"id: "):
                seq = int(ln[4:])
            elif ln.startswith(b"event: "):
                typ = ln[7:].decode()
            elif ln.startswith(b"data: "):
                data = ln[6:]
        if seq is None:
            return  # a comment, the retry hint or a keepalive
        if self.t_first is None:
            self.t_first = now
        if seq != self.last_seq + 1:
            self.in_order = False
        self.last_seq = seq
        self.events += 1
        self.types[typ] = self.types.get(typ, 0) + 1
        if "*" in self.keep or typ in self.keep:
            self.kept.append((now, seq, typ, data))
        if self.hook:
            self.hook(typ, now)
        if typ in FINAL:
            self.final = typ


def source_address(i, per=1000):
    """The loopback address subscriber i connects from: 127.0.0.2 for the
    first `per`, 127.0.0.3 for the next, ... so that no address holds
    more than a server's per-client limit, and 127.0.0.1 stays for the
    requests that drive the runs. Linux answers on all of 127.0.0.0/8."""
    return "127.0.%d.%d" % divmod(2 + i // per, 256)


def subscribe(host, port, run_id, keep=(), n=1, timeout=120):
    """Streams one run to n subscribers at once; returns them all."""
    async def main():
        subs = [Subscriber(host, port, "/api/runs/%d/events" % run_id, keep)
                for _ in range(n)]
        await asyncio.wait_for(asyncio.gather(*(s.run() for s in subs)),
                               timeout)
        return subs
    return asyncio.run(main())


def decode(data):
    return json.loads(data) if data else None
