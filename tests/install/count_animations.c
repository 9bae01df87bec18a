/*
 * Consumer of an installed hkspline (tests of scripts/install_test.sh): reads
 * one Havok file through the public header only and prints its number of
 * animations. Built once with `pkg-config --cflags --libs hkspline` and once
 * by the CMake project beside it (find_package(hkspline)).
 *
 * usage: count_animations FILE.hkx
 */
#include <hkspline.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.hkx\n", argv[0]);
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	size_t cap = 1 << 16, size = 0;
	unsigned char *data = malloc(cap);
	size_t n;
	while (data && (n = fread(data + size, 1, cap - size, f)) > 0) {
		size += n;
		if (size == cap) {
			unsigned char *grown = realloc(data, cap * 2);
			if (!grown) {
				free(data);
				data = NULL;
				break;
			}
			data = grown;
			cap *= 2;
		}
	}
	int read_error = ferror(f);
	fclose(f);
	if (!data || read_error) {
		fprintf(stderr, "%s: cannot read\n", argv[1]);
		free(data);
		return 1;
	}

	hks_error err;
	hks_error_clear(&err);
	hks_file *file = NULL;
	hks_read_options opts = {0};
	hks_result r = hks_file_read(data, size, &opts, &file, &err);
	free(data);
	if (r != HKS_OK) {
		char line[1024];
		hks_error_format(&err, line, sizeof line);
		fprintf(stderr, "%s: %s: %s\n", argv[1], hks_result_name(r), line);
		return 1;
	}
	printf("%s %u\n", HKS_VERSION_STRING, (unsigned)file->num_animations);
	hks_file_free(file);
	return 0;
}
