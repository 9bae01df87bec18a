/*
 * hkspline.dll (Windows build, issue 14): a program linked against the import
 * library only calls the public API, and the DLL exports nothing that is not
 * in hkspline.h (an internal function of the library is not found).
 */
#include "hkspline.h"

#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	int failed = 0;
	if (!hks_result_name(HKS_OK) || !*hks_result_name(HKS_OK)) {
		fprintf(stderr, "hks_result_name(HKS_OK) is empty\n");
		failed = 1;
	}
	const unsigned char junk[8] = {'D', 'C', 'X', 0, 1, 2, 3, 4};
	hks_dcx_info info;
	hks_error err;
	if (hks_dcx_read_info(junk, sizeof(junk), &info, &err) == HKS_OK) {
		fprintf(stderr, "a truncated DCX was accepted\n");
		failed = 1;
	}
	HMODULE dll = GetModuleHandleW(L"hkspline.dll");
	if (!dll) {
		fprintf(stderr, "hkspline.dll is not loaded (the program was linked statically?)\n");
		return 1;
	}
	if (!GetProcAddress(dll, "hks_dcx_read_info")) {
		fprintf(stderr, "hks_dcx_read_info is not exported\n");
		failed = 1;
	}
	/* library-internal functions (src/core/internal.h) stay private */
	const char *internal[] = {"hks_fail", "hks_ctx_init", "hks_malloc", "hks_platform_stat"};
	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		if (GetProcAddress(dll, internal[i])) {
			fprintf(stderr, "internal function %s is exported\n", internal[i]);
			failed = 1;
		}
	printf("dll_smoke: %s\n", failed ? "FAILED" : "ok");
	return failed;
}
