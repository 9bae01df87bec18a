/* A light identity sniff of Havok files (see io_internal.h). */
#include "io_internal.h"

/* Copy a run of printable ASCII (stopping at NUL or a non-printable byte). */
static void copy_printable(char *dst, size_t cap, const uint8_t *src, size_t n)
{
	size_t k = 0;
	while (k < n && k + 1 < cap && src[k] >= 0x20 && src[k] < 0x7F) {
		dst[k] = (char)src[k];
		k++;
	}
	dst[k] = '\0';
}

/*
 * TAG0's children (CONTAINERS.md §2.1, §2.2): each section starts with a
 * big-endian u32 whose low 30 bits are the section size including the 8-byte
 * header, then a 4-byte ASCII tag. SDKV holds 8 ASCII digits (§2.3); TCRF
 * holds the 8-byte compendium ID followed by 16 zero bytes (§2.11).
 */
static void sniff_tagfile(const uint8_t *p, size_t size, hks_sniff *out)
{
	if (size < 8)
		return;
	uint64_t root_end = hks_be32(p) & 0x3FFFFFFFu;
	if (root_end > size)
		root_end = size; /* a truncated file: look at what is there */
	uint64_t off = 8;
	while (hks_range_ok((size_t)root_end, off, 8)) {
		uint32_t section_size = hks_be32(p + off) & 0x3FFFFFFFu;
		const uint8_t *tag = p + off + 4;
		if (section_size < 8 || !hks_range_ok((size_t)root_end, off, section_size))
			break;
		const uint8_t *payload = p + off + 8;
		size_t payload_size = section_size - 8;
		if (!memcmp(tag, "SDKV", 4))
			copy_printable(out->sdk, sizeof(out->sdk), payload, payload_size);
		else if (!memcmp(tag, "TCRF", 4) && payload_size >= 8) {
			out->has_tcrf = 1;
			memcpy(out->tcrf_id, payload, 8);
		}
		off += section_size;
	}
}

void hks_sniff_bytes(const uint8_t *data, size_t size, hks_sniff *out)
{
	memset(out, 0, sizeof(*out));
	out->container = hks_detect_container(data, size);
	if (out->container == HKS_CONTAINER_TAGFILE)
		sniff_tagfile(data, size, out);
	else if (out->container == HKS_CONTAINER_PACKFILE && size >= 0x38)
		copy_printable(out->sdk, sizeof(out->sdk), data + 0x28, 16); /* contentsVersion, CONTAINERS.md §5.1 */
}
