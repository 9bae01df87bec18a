/* libFuzzer entry point shared by the fuzz targets and the regression driver. */
#ifndef HKS_FUZZ_H
#define HKS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
