/* openapi.c - embeds server/rundoc/openapi.json (the API described) into the binary */
#include "openapi.h"

/*
 * The JSON stays a file of its own so it can be read, linted and diffed;
 * the assembler copies it in. Paths are relative to the repository root,
 * where make runs the compiler.
 */
__asm__(".section .rodata\n"
	".global openapi_json\n"
	".type openapi_json, @object\n"
	".balign 16\n"
	"openapi_json:\n"
	".incbin \"server/rundoc/openapi.json\"\n"
	".Lopenapi_json_end:\n"
	".byte 0\n"
	".size openapi_json, . - openapi_json\n"
	".global openapi_json_len\n"
	".type openapi_json_len, @object\n"
	".balign 8\n"
	"openapi_json_len:\n"
	".quad .Lopenapi_json_end - openapi_json\n"
	".size openapi_json_len, 8\n"
	".previous\n");
