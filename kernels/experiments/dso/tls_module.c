/* tls_module.c - a shared object with thread-local variables that variable_layout loads with dlopen */
#include <stddef.h>

/*
 * Built twice by the Makefile: libnumalab_tls.so with the counter alone,
 * libnumalab_tls_big.so with TLS_MODULE_PAD bytes of thread-local padding
 * beside it. A thread that touches the counter gets the object's whole
 * TLS block allocated (and zeroed) on that first touch.
 */
#ifndef TLS_MODULE_PAD
#define TLS_MODULE_PAD 0
#endif

__thread long tls_module_counter;
#if TLS_MODULE_PAD
__thread char tls_module_pad[TLS_MODULE_PAD];
#endif

/*
 * One access per call: the object is position independent and loaded
 * late, so the compiler must ask __tls_get_addr where this thread's copy
 * is (the general-dynamic model) on every call.
 */
__attribute__((noinline)) void tls_module_bump(void)
{
	tls_module_counter++;
}

long tls_module_get(void)
{
	return tls_module_counter;
}

/* Bytes of this object's TLS block: what each thread that touches it pays. */
size_t tls_module_bytes(void)
{
	return sizeof(tls_module_counter) + TLS_MODULE_PAD;
}
