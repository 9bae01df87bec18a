/* The bounds-checked cursor: the one place input bytes are read from. */
#include "internal.h"

hks_result hks_cursor_need(hks_cursor *c, size_t n, const char *what)
{
	if (HKS_UNLIKELY(c->pos > c->size || n > c->size - c->pos))
		return hks_fail(c->ctx, HKS_E_TRUNCATED, hks_cursor_offset(c),
		                "%s: need %zu bytes, only %zu left", what ? what : "data", n,
		                c->pos <= c->size ? c->size - c->pos : (size_t)0);
	return HKS_OK;
}

hks_result hks_read_u8(hks_cursor *c, uint8_t *v, const char *what)
{
	HKS_TRY(hks_cursor_need(c, 1, what));
	*v = c->data[c->pos++];
	return HKS_OK;
}

hks_result hks_read_le16(hks_cursor *c, uint16_t *v, const char *what)
{
	HKS_TRY(hks_cursor_need(c, 2, what));
	*v = hks_le16(c->data + c->pos);
	c->pos += 2;
	return HKS_OK;
}

hks_result hks_read_le32(hks_cursor *c, uint32_t *v, const char *what)
{
	HKS_TRY(hks_cursor_need(c, 4, what));
	*v = hks_le32(c->data + c->pos);
	c->pos += 4;
	return HKS_OK;
}

hks_result hks_read_le64(hks_cursor *c, uint64_t *v, const char *what)
{
	HKS_TRY(hks_cursor_need(c, 8, what));
	*v = hks_le64(c->data + c->pos);
	c->pos += 8;
	return HKS_OK;
}

hks_result hks_read_be32(hks_cursor *c, uint32_t *v, const char *what)
{
	HKS_TRY(hks_cursor_need(c, 4, what));
	*v = hks_be32(c->data + c->pos);
	c->pos += 4;
	return HKS_OK;
}

hks_result hks_read_f32(hks_cursor *c, float *v, const char *what)
{
	uint32_t u;
	HKS_TRY(hks_read_le32(c, &u, what));
	*v = hks_f32_from_bits(u);
	return HKS_OK;
}

hks_result hks_read_bytes(hks_cursor *c, size_t n, const uint8_t **p, const char *what)
{
	HKS_TRY(hks_cursor_need(c, n, what));
	*p = c->data + c->pos;
	c->pos += n;
	return HKS_OK;
}

hks_result hks_skip(hks_cursor *c, size_t n, const char *what)
{
	HKS_TRY(hks_cursor_need(c, n, what));
	c->pos += n;
	return HKS_OK;
}

hks_result hks_align(hks_cursor *c, size_t a, const char *what)
{
	size_t r = c->pos & (a - 1);
	return r ? hks_skip(c, a - r, what) : HKS_OK;
}
