/*
 * Hostile cases found by a second attacker's session (issue 17, "held-out
 * hostile files"), each built here from synthetic data (tests/fuzz/synth.h),
 * never corpus bytes:
 *   - a glTF with named nodes that are no skeleton bone: the import's report
 *     (unmatched_nodes) must stay readable after hks_gltf_read returns (it
 *     pointed into the freed JSON tree: a use after free);
 *   - stdout that cannot be written (/dev/full): every command that prints its
 *     result there exits 2 with a message (they all exited 0 with nothing
 *     written, so `hkspline decode X -o - > out.json` on a full disk "succeeded");
 *   - recompress -o OUT --record REC: one result in two files; when one cannot
 *     be written neither target changes (the record was replaced while the
 *     file failed; a file the writer refuses, Havok XML, left its record
 *     alone), and -o and --record naming one file is refused (the record was
 *     silently overwritten by the file);
 *   - a binder member stored DCX-compressed (flag 0x01) replaced with plain
 *     bytes: `encode --into` stored the plain .hkx under the flag, so the
 *     member no longer read (exit 0); hks_bnd4_replace (the Python binding's
 *     Binder.replace) did the same. Now the CLI compresses like the member and
 *     the library clears the flag;
 *   - a file-size limit (ulimit -f) with SIGXFSZ at its default: the signal
 *     killed the CLI half-way and left a .NAME.tmp-XXXXXX beside the target;
 *     now the write fails (EFBIG), the temporary is removed, status 1 or 2;
 *   - bnd pack of a folder (a mod archive's) whose member file is a symbolic
 *     link out of it: the linked file (/etc/passwd in the attack) was packed
 *     into the binder; a manifest with a NUL byte silently lost every entry
 *     after it; file-header hex like "zz" was accepted;
 *   - encode --into with an empty --name (a member named by the folder prefix
 *     alone), a name with a newline, and a 3,000-byte name (cut at 1,023
 *     bytes, ".hkx" lost, exit 0);
 *   - decode --time-step within max_frames / max_output_bytes whose JSON is over
 *     64 MiB: hks_frames_json_write's memory budget ignored the document
 *     (16 x 0 + 64 MiB) and failed after all the sampling, naming no file;
 *   - a folder tree deeper than the walk's bound (64): the files below were
 *     skipped in silence (`check` said "0 files", exit 0); now an error;
 *   - bnd extract of a member the binder does not hold created the output
 *     folder anyway; --deflate-level 1x was taken as 1;
 *   - (policy, session 6) encode --fps 1e-9 made a 10^9-second clip: the rate
 *     is now 1 to 10000 frames per second;
 *   - (session 6) SIGINT in the middle of a write left the .NAME.tmp-XXXXXX:
 *     the CLI's handler removes the temporaries in flight
 *     (hks_atomic_remove_temporaries), then the signal ends the process;
 *   - (session 6, third pass) encode --into NAME where two members share NAME's
 *     base name: the animation was refused as "not a Havok file" (exit 2);
 *   - (session 6, third pass) error DIR_A DIR_B where a B file holds more
 *     animations than its A file: the extra ones were skipped in silence (exit 0);
 *   - (session 6, third pass) SIGINT during a write to a path of 1,024 bytes or
 *     more: its temporary was not registered, so it was left behind;
 *   - (session 6, third pass) encode --into NAME whose member cannot be read (a
 *     skeleton stored DCX KRAK, no Oodle library): it was replaced (exit 0);
 *   - (session 6, third pass) encode --like B:M -o B, recompress B -o B (the
 *     binder became a bare .hkx) and recompress IN --record IN (the file became
 *     its record), all exit 0.
 * Each ends in a clean error (status, message naming the file) or a valid result.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"
#include "hks_hostile.h"

#include "../tests/fuzz/synth.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *cli;

static int setup(void **state)
{
	(void)state;
	return hks_hostile_setup_cli("hks_hostile_at", &cli);
}

static int teardown(void **state)
{
	(void)state;
	return hks_hostile_teardown();
}

/* ---- glTF: the unmatched-node report outlives the JSON ---- */

static void test_gltf_unmatched_names_outlive_json(void **state)
{
	(void)state;
	/* one translation channel on "spine", two times; extra nodes named unlike any bone */
	static const char *const extra[] = {"Armature", "camera_rig", "a very long node name that no bone has, 48+ b"};
	float bin[8] = {0.0f, 1.0f / 30.0f, 0, 1, 0, 0, 1, 0};
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const uint8_t *d = (const uint8_t *)bin;
	char enc[64];
	size_t k = 0;
	for (size_t i = 0; i < sizeof(bin); i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < sizeof(bin) ? (uint32_t)d[i + 1] << 8 : 0) |
		             (i + 2 < sizeof(bin) ? d[i + 2] : 0);
		enc[k++] = b64[(v >> 18) & 63];
		enc[k++] = b64[(v >> 12) & 63];
		enc[k++] = i + 1 < sizeof(bin) ? b64[(v >> 6) & 63] : '=';
		enc[k++] = i + 2 < sizeof(bin) ? b64[v & 63] : '=';
	}
	enc[k] = '\0';
	char json[2048];
	snprintf(json, sizeof(json),
	         "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[3]}],\"scene\":0,"
	         "\"nodes\":[{\"name\":\"root\",\"children\":[1]},{\"name\":\"spine\",\"children\":[2],"
	         "\"translation\":[0,1,0]},{\"name\":\"head\",\"translation\":[0,0.5,0]},"
	         "{\"name\":\"%s\",\"children\":[0,4,5]},{\"name\":\"%s\"},{\"name\":\"%s\"}],"
	         "\"buffers\":[{\"byteLength\":32,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
	         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],"
	         "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":2},"
	         "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":2}],"
	         "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,"
	         "\"target\":{\"node\":1,\"path\":\"translation\"}}]}]}",
	         extra[0], extra[1], extra[2], enc);
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.animation = -1;
	hks_gltf_animation *a = NULL;
	hks_error err;
	hks_result r = hks_gltf_read(json, strlen(json), synth_skeleton(), &ro, &a, &err);
	if (r != HKS_OK)
		printf("import: %s\n", err.message);
	assert_int_equal(r, HKS_OK);
	/* allocations after the import reuse the JSON's freed blocks */
	void *churn[64];
	for (int i = 0; i < 64; i++) {
		churn[i] = malloc(16 + (size_t)(i % 8) * 16);
		memset(churn[i], 'x', 16 + (size_t)(i % 8) * 16);
	}
	assert_int_equal(a->num_unmatched_nodes, 3);
	bool seen[3] = {false, false, false};
	for (uint32_t i = 0; i < a->num_unmatched_nodes; i++)
		for (int j = 0; j < 3; j++)
			if (!strcmp(a->unmatched_nodes[i], extra[j]))
				seen[j] = true;
	assert_true(seen[0] && seen[1] && seen[2]);
	for (int i = 0; i < 64; i++)
		free(churn[i]);
	hks_gltf_animation_free(a);
}

/* A tagfile with one spline animation (T tracks, `frames` frames). */
static void write_spline_file(const char *path, uint32_t T, uint32_t frames)
{
	hks_packed_spline *p = synth_spline(T, 0, frames, 0, 0, "20160200");
	assert_non_null(p);
	size_t n = 0;
	uint8_t *t = synth_tagfile(p, "20160200", NULL, &n);
	assert_non_null(t);
	hks_hostile_write(path, t, n);
	free(t);
	hks_packed_spline_free(p);
}

/* ---- stdout: a write error is a failure ---- */

static void test_stdout_write_error(void **state)
{
	(void)state;
	if (access("/dev/full", W_OK) != 0) {
		printf("no /dev/full: skipped\n");
		return;
	}
	char f[1024], binder[1024];
	snprintf(f, sizeof(f), "%s", hks_hostile_path("a.hkx")); /* hks_hostile_path's buffers rotate */
	snprintf(binder, sizeof(binder), "%s", hks_hostile_path("b.anibnd"));
	write_spline_file(f, 3, 40);
	/* each: the command before the path, then after it */
	static const char *const cmds[][2] = {{"info", ""},          {"info --json", ""},  {"check", ""},
	                                      {"check --json", ""},  {"stats --json", ""}, {"stats --csv", ""},
	                                      {"decode", "-o -"},    {"bnd list", ""},     {"bnd list --json", ""}};
	char cmd[4096], *out = NULL;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *arg = f;
		if (!strncmp(cmds[i][0], "bnd", 3) && access(binder, F_OK) != 0) {
			/* a one-member binder made by bnd pack */
			snprintf(cmd, sizeof(cmd),
			         "mkdir -p '%s/pk' && cp '%s' '%s/pk/a.hkx' && printf 'hkspline-bnd 1\nbnd4-header\t%s\n"
			         "entry\t1\t40\t%s\ta.hkx\ta.hkx\n' > '%s/pk/_hkspline_bnd.txt' && '%s' bnd pack '%s/pk' -o '%s'",
			         hks_hostile_root(), f, hks_hostile_root(),
			         "424e443400000000000001008c000000400000000000000030374437523600002400000000000000"
			         "186c0000000000000174040000000000f066000000000000",
			         "40000000ffffffff00000000000000000000000000000000000000000000000000000000",
			         hks_hostile_root(), cli, hks_hostile_root(), binder);
			int rc = hks_hostile_run(cmd, &out);
			if (rc != 0)
				printf("%s\n", out);
			assert_int_equal(rc, 0);
			free(out);
		}
		if (!strncmp(cmds[i][0], "bnd", 3))
			arg = binder;
		/* to a regular file: exit 0 and output */
		snprintf(cmd, sizeof(cmd), "'%s' %s '%s' %s > '%s'", cli, cmds[i][0], arg, cmds[i][1],
		         hks_hostile_path("out.txt"));
		int ok = hks_hostile_run(cmd, &out);
		if (ok != 0)
			printf("%s: status %d: %s\n", cmds[i][0], ok, out);
		free(out);
		assert_int_equal(ok, 0);
		struct stat st;
		assert_int_equal(stat(hks_hostile_path("out.txt"), &st), 0);
		assert_true(st.st_size > 0);
		/* to /dev/full: exit 2 and a message */
		snprintf(cmd, sizeof(cmd), "{ '%s' %s '%s' %s > /dev/full; }", cli, cmds[i][0], arg, cmds[i][1]);
		int rc = hks_hostile_run(cmd, &out);
		printf("%s: status %d: %s", cmds[i][0], rc, out);
		bool said = strstr(out, "standard output") || strstr(out, "write error on -");
		free(out);
		assert_int_equal(rc, 2);
		assert_true(said);
	}
	snprintf(cmd, sizeof(cmd), "{ '%s' --version > /dev/full; }", cli);
	assert_int_equal(hks_hostile_run(cmd, &out), 2);
	free(out);
}

/* ---- recompress: the file and its record together ---- */

static uint8_t *slurp(const char *path, size_t *n)
{
	uint8_t *b = hks_test_read_file(path, n);
	assert_non_null(b);
	return b;
}

/* That the file at path still holds bytes[0..n) (a refused command left it alone) */
static void assert_file_holds(const char *path, const uint8_t *bytes, size_t n)
{
	size_t now_n = 0;
	uint8_t *now = slurp(path, &now_n);
	assert_int_equal(now_n, n);
	assert_memory_equal(now, bytes, n);
	free(now);
}

static void test_recompress_pair(void **state)
{
	(void)state;
	char in[1024], out[1024], rec[1024], cmd[8192], *text = NULL;
	snprintf(in, sizeof(in), "%s", hks_hostile_path("rc.hkx"));
	snprintf(out, sizeof(out), "%s", hks_hostile_path("rc_out.hkx"));
	snprintf(rec, sizeof(rec), "%s", hks_hostile_path("rc.rec"));
	write_spline_file(in, 2, 30);
	hks_hostile_write(out, "old output", 10);
	hks_hostile_write(rec, "old record", 10);
	/* the file cannot be written (its folder is missing): the record keeps its old bytes */
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' -o '%s/missing/x.hkx' --record '%s'", cli, in, hks_hostile_root(),
	         rec);
	assert_int_equal(hks_hostile_run(cmd, &text), 2); /* an output that cannot be written: fatal (1 before session 18) */
	free(text);
	size_t n = 0;
	uint8_t *b = slurp(rec, &n);
	assert_int_equal(n, 10);
	assert_memory_equal(b, "old record", 10);
	free(b);
	/* the record cannot be written: the file keeps its old bytes */
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' -o '%s' --record '%s/missing/x.rec'", cli, in, out,
	         hks_hostile_root());
	assert_int_equal(hks_hostile_run(cmd, &text), 2);
	free(text);
	b = slurp(out, &n);
	assert_int_equal(n, 10);
	assert_memory_equal(b, "old output", 10);
	free(b);
	/* one file named twice (also through another spelling): refused, the input untouched */
	size_t in_n = 0;
	uint8_t *in_bytes = slurp(in, &in_n);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' recompress rc.hkx -o rc.hkx --record ./rc.hkx", hks_hostile_root(), cli);
	assert_int_equal(hks_hostile_run(cmd, &text), 2);
	assert_non_null(strstr(text, "same file"));
	free(text);
	b = slurp(in, &n);
	assert_int_equal(n, in_n);
	assert_memory_equal(b, in_bytes, n);
	free(b);
	free(in_bytes);
	/* a file that reads but cannot be written back (Havok XML has no writer): no record either */
	char xml[1024], xrec[1024];
	snprintf(xml, sizeof(xml), "%s", hks_hostile_path("rc.xml"));
	snprintf(xrec, sizeof(xrec), "%s", hks_hostile_path("rc_xml.rec"));
	hks_packed_spline *p = synth_spline(2, 0, 20, 0, 0, "20160200");
	assert_non_null(p);
	size_t xn = 0;
	uint8_t *xb = synth_xml(p, &xn);
	assert_non_null(xb);
	hks_hostile_write(xml, xb, xn);
	free(xb);
	hks_packed_spline_free(p);
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' -o '%s/rc_xml.hkx' --record '%s'", cli, xml, hks_hostile_root(),
	         xrec);
	assert_int_equal(hks_hostile_run(cmd, &text), 1);
	free(text);
	assert_int_equal(access(xrec, F_OK), -1);
	/* both writable: both written, no temporary left */
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' -o '%s' --record '%s'", cli, in, out, rec);
	assert_int_equal(hks_hostile_run(cmd, &text), 0);
	free(text);
	b = slurp(rec, &n);
	assert_true(n > 8 && !memcmp(b, "HKSF", 4));
	free(b);
	b = slurp(out, &n);
	assert_true(n > 100);
	free(b);
	snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -c tmp", hks_hostile_root());
	hks_hostile_run(cmd, &text);
	assert_int_equal(atoi(text), 0);
	free(text);
}

/* ---- a DCX-compressed binder member replaced by plain bytes ---- */

/* A binder with members "a.hkx" (the tagfile at `hkx`, stored as a DCX, flag COMPRESSED) and
 * "b.bin" (plain), written to `path`. */
static void write_compressed_binder(const char *path, const char *hkx)
{
	size_t n = 0, dn = 0, bn = 0;
	uint8_t *raw = slurp(hkx, &n), *dcx = NULL, *out = NULL;
	hks_error err;
	assert_int_equal(hks_dcx_compress(raw, n, NULL, NULL, &dcx, &dn, &err), HKS_OK);
	hks_bnd4 *b = NULL;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\chr\\a.hkx", 1000000, 0x40 | HKS_BND4_ENTRY_COMPRESSED, dcx, dn, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\chr\\b.bin", 1000001, 0x40, "plain", 5, &err), HKS_OK);
	assert_int_equal(hks_bnd4_write(b, NULL, &out, &bn, &err), HKS_OK);
	hks_hostile_write(path, out, bn);
	hks_buffer_free(NULL, out, bn);
	hks_buffer_free(NULL, dcx, dn);
	hks_bnd4_free(b);
	free(raw);
}

static void test_replace_compressed_member(void **state)
{
	(void)state;
	char hkx[1024], binder[1024], json[1024], out[1024], cmd[8192], *text = NULL;
	snprintf(hkx, sizeof(hkx), "%s", hks_hostile_path("m.hkx"));
	snprintf(binder, sizeof(binder), "%s", hks_hostile_path("m.anibnd"));
	snprintf(json, sizeof(json), "%s", hks_hostile_path("m.json"));
	snprintf(out, sizeof(out), "%s", hks_hostile_path("m_out.hkx"));
	write_spline_file(hkx, 2, 30);
	size_t n = 0, hn = 0;
	uint8_t *plain = slurp(hkx, &hn);
	hks_error err;

	/* the library: plain bytes for a compressed member lose the flag, and the member reads */
	write_compressed_binder(binder, hkx);
	uint8_t *bytes = slurp(binder, &n);
	hks_bnd4 *b = NULL;
	assert_int_equal(hks_bnd4_read(bytes, n, NULL, &b, &err), HKS_OK);
	free(bytes);
	assert_true(b->entries[0].flags & HKS_BND4_ENTRY_COMPRESSED);
	assert_int_equal(hks_bnd4_replace(b, 0, plain, hn, &err), HKS_OK);
	assert_false(b->entries[0].flags & HKS_BND4_ENTRY_COMPRESSED);
	assert_int_equal(b->entries[0].flags, 0x40);
	uint8_t *w = NULL;
	size_t wn = 0;
	assert_int_equal(hks_bnd4_write(b, NULL, &w, &wn, &err), HKS_OK);
	hks_bnd4_free(b);
	assert_int_equal(hks_bnd4_read(w, wn, NULL, &b, &err), HKS_OK);
	assert_false(b->entries[0].flags & HKS_BND4_ENTRY_COMPRESSED);
	assert_int_equal(b->entries[0].size, hn);
	assert_memory_equal(b->entries[0].data, plain, hn);
	/* a DCX for a compressed member keeps the flag */
	uint8_t *dcx = NULL;
	size_t dn = 0;
	assert_int_equal(hks_dcx_compress(plain, hn, NULL, NULL, &dcx, &dn, &err), HKS_OK);
	b->entries[0].flags |= HKS_BND4_ENTRY_COMPRESSED;
	assert_int_equal(hks_bnd4_replace(b, 0, dcx, dn, &err), HKS_OK);
	assert_true(b->entries[0].flags & HKS_BND4_ENTRY_COMPRESSED);
	assert_int_equal(b->entries[0].uncompressed_size, hn);
	hks_buffer_free(NULL, dcx, dn);
	hks_bnd4_free(b);
	hks_buffer_free(NULL, w, wn);

	/* the CLI: encode --into keeps the member compressed, and every member reads */
	write_compressed_binder(binder, hkx);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s:a.hkx' -o '%s' && '%s' encode '%s' --into '%s' --name a.hkx -o '%s'",
	         cli, binder, json, cli, json, binder, out);
	int rc = hks_hostile_run(cmd, &text);
	if (rc != 0)
		printf("%s\n", text);
	free(text);
	assert_int_equal(rc, 0);
	bytes = slurp(binder, &n);
	assert_int_equal(hks_bnd4_read(bytes, n, NULL, &b, &err), HKS_OK);
	free(bytes);
	assert_true(b->entries[0].flags & HKS_BND4_ENTRY_COMPRESSED);
	uint8_t *un = NULL;
	size_t un_n = 0;
	hks_dcx_info info;
	assert_int_equal(hks_dcx_decompress(b->entries[0].data, (size_t)b->entries[0].size, NULL, &un, &un_n, &info, &err),
	                 HKS_OK);
	size_t on = 0;
	uint8_t *o = slurp(out, &on);
	assert_int_equal(un_n, on);
	assert_memory_equal(un, o, on);
	free(o);
	hks_buffer_free(NULL, un, un_n);
	hks_bnd4_free(b);
	snprintf(cmd, sizeof(cmd), "'%s' check '%s'", cli, binder);
	rc = hks_hostile_run(cmd, &text);
	if (rc != 0)
		printf("%s\n", text);
	free(text);
	assert_int_equal(rc, 0);
	free(plain);
}

/* ---- ulimit -f without trap: no temporary left ---- */

static void test_file_size_limit_signal(void **state)
{
	(void)state;
	char in[1024], cmd[8192], *text = NULL;
	snprintf(in, sizeof(in), "%s", hks_hostile_path("big.hkx"));
	write_spline_file(in, 20, 200);
	static const char *const outs[] = {"fs.json", "fs.csv", "fs.hkx"};
	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		char out[1024];
		snprintf(out, sizeof(out), "%s", hks_hostile_path(outs[i]));
		hks_hostile_write(out, "old", 3);
		/* a subshell with SIGXFSZ at its default (trap - XFSZ), limited to 8 KiB */
		snprintf(cmd, sizeof(cmd), "(trap - XFSZ; ulimit -f 8; '%s' %s '%s' -o '%s')", cli,
		         strstr(outs[i], ".hkx") ? "repack" : "decode", in, out);
		int rc = hks_hostile_run(cmd, &text);
		printf("%s: status %d: %s", outs[i], rc, text);
		free(text);
		size_t n = 0;
		uint8_t *b = slurp(out, &n);
		assert_int_equal(n, 3);
		assert_memory_equal(b, "old", 3);
		free(b);
		assert_true(rc == 1 || rc == 2); /* a failed write, not a signal (-1) */
		snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -c tmp-", hks_hostile_root());
		hks_hostile_run(cmd, &text);
		assert_int_equal(atoi(text), 0);
		free(text);
	}
}

/* ---- bnd pack: links out of the folder, NUL bytes, bad hex ---- */

#define PACK_HEADER \
	"424e443400000000000001008c000000400000000000000030374437523600002400000000000000186c0000000000000174040000000000f066000000000000"
#define PACK_ENTRY_HEADER "40000000ffffffff00000000000000000000000000000000000000000000000000000000"

/* Write DIR/_hkspline_bnd.txt with `n` bytes of `text`, run bnd pack DIR -o OUT; its status. */
static int pack_with(const char *dir, const char *text, size_t n, const char *out, char **msg)
{
	char path[2048], cmd[8192];
	snprintf(path, sizeof(path), "%s/_hkspline_bnd.txt", dir);
	hks_hostile_write(path, text, n);
	snprintf(cmd, sizeof(cmd), "'%s' bnd pack '%s' -o '%s'", cli, dir, out);
	return hks_hostile_run(cmd, msg);
}

static void test_pack_hostile_folder(void **state)
{
	(void)state;
	char dir[1024], out[1024], secret[1024], cmd[8192], text[2048], *msg = NULL;
	snprintf(dir, sizeof(dir), "%s", hks_hostile_path("pk2"));
	snprintf(out, sizeof(out), "%s", hks_hostile_path("pk2.anibnd"));
	snprintf(secret, sizeof(secret), "%s", hks_hostile_path("secret.txt"));
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && ln -s '%s' '%s/b.hkx' && ln -s a.hkx '%s/c.hkx'", dir, secret, dir, dir);
	assert_int_equal(system(cmd), 0);
	hks_hostile_write(secret, "private key", 11);
	char a[2048];
	snprintf(a, sizeof(a), "%s/a.hkx", dir);
	write_spline_file(a, 2, 10);
	/* a link out of the folder: refused, nothing written */
	int k = snprintf(text, sizeof(text),
	                 "hkspline-bnd 1\nbnd4-header\t" PACK_HEADER "\nentry\t1\t40\t" PACK_ENTRY_HEADER
	                 "\ta.hkx\ta.hkx\nentry\t2\t40\t" PACK_ENTRY_HEADER "\tb.hkx\tb.hkx\n");
	assert_int_equal(pack_with(dir, text, (size_t)k, out, &msg), 1);
	assert_non_null(strstr(msg, "outside"));
	free(msg);
	assert_int_equal(access(out, F_OK), -1);
	/* a link inside it: packed */
	k = snprintf(text, sizeof(text),
	             "hkspline-bnd 1\nbnd4-header\t" PACK_HEADER "\nentry\t1\t40\t" PACK_ENTRY_HEADER
	             "\ta.hkx\ta.hkx\nentry\t2\t40\t" PACK_ENTRY_HEADER "\tc.hkx\tc.hkx\n");
	assert_int_equal(pack_with(dir, text, (size_t)k, out, &msg), 0);
	free(msg);
	size_t n = 0;
	uint8_t *bytes = slurp(out, &n);
	hks_bnd4 *b = NULL;
	hks_error err;
	assert_int_equal(hks_bnd4_read(bytes, n, NULL, &b, &err), HKS_OK);
	assert_int_equal(b->num_entries, 2);
	hks_bnd4_free(b);
	free(bytes);
	assert_int_equal(remove(out), 0);
	/* a NUL byte in the middle (the second entry after it): refused with its offset */
	k = snprintf(text, sizeof(text),
	             "hkspline-bnd 1\nbnd4-header\t" PACK_HEADER "\nentry\t1\t40\t" PACK_ENTRY_HEADER
	             "\ta.hkx\ta.hkx\n#\nentry\t2\t40\t" PACK_ENTRY_HEADER "\tc.hkx\tc.hkx\n");
	char *hash = strstr(text, "#\n");
	assert_non_null(hash);
	*hash = '\0';
	assert_int_equal(pack_with(dir, text, (size_t)k, out, &msg), 1);
	assert_non_null(strstr(msg, "NUL"));
	free(msg);
	assert_int_equal(access(out, F_OK), -1);
	/* a file header that is no hex, flags that are no hex */
	k = snprintf(text, sizeof(text),
	             "hkspline-bnd 1\nbnd4-header\t" PACK_HEADER "\nentry\t1\t40\tzz%s\ta.hkx\ta.hkx\n",
	             &PACK_ENTRY_HEADER[2]);
	assert_int_equal(pack_with(dir, text, (size_t)k, out, &msg), 1);
	assert_non_null(strstr(msg, "bad entry line"));
	free(msg);
	k = snprintf(text, sizeof(text),
	             "hkspline-bnd 1\nbnd4-header\t" PACK_HEADER "\nentry\t1\t4x\t" PACK_ENTRY_HEADER "\ta.hkx\ta.hkx\n");
	assert_int_equal(pack_with(dir, text, (size_t)k, out, &msg), 1);
	free(msg);
	assert_int_equal(access(out, F_OK), -1);
}

/* ---- encode --into: hostile --name ---- */

static void test_into_names(void **state)
{
	(void)state;
	char hkx[1024], binder[1024], json[1024], out[1024], cmd[16384], *text = NULL;
	snprintf(hkx, sizeof(hkx), "%s", hks_hostile_path("n.hkx"));
	snprintf(binder, sizeof(binder), "%s", hks_hostile_path("n.anibnd"));
	snprintf(json, sizeof(json), "%s", hks_hostile_path("n.json"));
	snprintf(out, sizeof(out), "%s", hks_hostile_path("n_out.hkx"));
	write_spline_file(hkx, 2, 20);
	write_compressed_binder(binder, hkx);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s:a.hkx' -o '%s'", cli, binder, json);
	assert_int_equal(hks_hostile_run(cmd, &text), 0);
	free(text);
	size_t n0 = 0;
	uint8_t *before = slurp(binder, &n0);
	static const char *const bad[] = {"", "sub\\", "a\nb.hkx", "tab\tname.hkx"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --into '%s' --name \"$(printf '%s')\" -o '%s' --no-backup", cli,
		         json, binder, bad[i], out);
		int rc = hks_hostile_run(cmd, &text);
		printf("name %zu: status %d: %s", i, rc, text);
		free(text);
		assert_int_equal(rc, 2);
	}
	size_t n = 0;
	uint8_t *after = slurp(binder, &n);
	assert_int_equal(n, n0);
	assert_memory_equal(before, after, n);
	free(after);
	free(before);
	/* a long name is kept whole */
	char name[3100];
	memset(name, 'x', 3000);
	strcpy(name + 3000, ".hkx");
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --into '%s' --name '%s' -o '%s' --no-backup", cli, json, binder, name,
	         out);
	int rc = hks_hostile_run(cmd, &text);
	if (rc != 0)
		printf("%s\n", text);
	free(text);
	assert_int_equal(rc, 0);
	after = slurp(binder, &n);
	hks_bnd4 *b = NULL;
	hks_error err;
	assert_int_equal(hks_bnd4_read(after, n, NULL, &b, &err), HKS_OK);
	free(after);
	uint32_t idx = 0;
	assert_int_equal(hks_bnd4_find(b, name, &idx, &err), HKS_OK);
	size_t len = strlen(b->entries[idx].name);
	assert_true(len >= 3004);
	assert_string_equal(b->entries[idx].name + len - 3004, name);
	hks_bnd4_free(b);
}

/* ---- the frames-JSON writer's memory budget follows the document ---- */

static void test_frames_json_budget(void **state)
{
	(void)state;
	const uint32_t rows = 100000, T = 8;
	float *tr = (float *)calloc((size_t)rows * T * HKS_TRACK_SAMPLE_FLOATS, sizeof(float));
	float *times = (float *)calloc(rows, sizeof(float));
	assert_non_null(tr);
	assert_non_null(times);
	for (size_t i = 0; i < (size_t)rows * T * HKS_TRACK_SAMPLE_FLOATS; i++)
		tr[i] = (float)(i % 977) * 0.001f;
	for (uint32_t i = 0; i < rows; i++)
		times[i] = (float)i * 1e-4f;
	hks_decoded d;
	memset(&d, 0, sizeof(d));
	d.num_frames = rows;
	d.num_transform_tracks = T;
	d.duration = (float)(rows - 1) * 1e-4f;
	d.frame_duration = 1e-4f;
	d.transforms = tr;
	d.times = times;
	hks_frames_doc doc;
	memset(&doc, 0, sizeof(doc));
	doc.source_path = "synthetic.hkx";
	doc.time_step = 1e-4;
	doc.hex = 1; /* 8 hex digits per value: over 64 MiB of text for 8.1 million values */
	doc.animations = &d;
	doc.num_animations = 1;
	uint8_t *out = NULL;
	size_t n = 0;
	hks_error err;
	hks_result r = hks_frames_json_write(&doc, NULL, &out, &n, &err);
	if (r != HKS_OK)
		printf("write: %s\n", err.message);
	assert_int_equal(r, HKS_OK);
	printf("%zu bytes of JSON\n", n);
	assert_true(n > (size_t)64 << 20);
	hks_buffer_free(NULL, out, n);
	/* an explicit budget still binds, and the error names the file */
	hks_options o;
	memset(&o, 0, sizeof(o));
	o.name = "synthetic.hkx";
	o.limits.max_memory = 16u << 20;
	assert_int_equal(hks_frames_json_write(&doc, &o, &out, &n, &err), HKS_E_LIMIT);
	assert_non_null(strstr(err.file, "synthetic.hkx"));
	free(tr);
	free(times);
}

/* ---- folder walks deeper than the bound ---- */

static void test_deep_folders(void **state)
{
	(void)state;
	char cmd[8192], *text = NULL;
	for (int depth = 60; depth <= 70; depth += 10) {
		/* ROOT/dN/d/d/.../d/a.hkx with `depth` folders */
		char rel[1024];
		int k = snprintf(rel, sizeof(rel), "d%d", depth);
		for (int i = 1; i < depth; i++)
			k += snprintf(rel + k, sizeof(rel) - (size_t)k, "/d");
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", hks_hostile_root(), rel);
		assert_int_equal(system(cmd), 0);
		char file[2048];
		snprintf(file, sizeof(file), "%s/%s/a.hkx", hks_hostile_root(), rel);
		write_spline_file(file, 2, 10);
		snprintf(cmd, sizeof(cmd), "'%s' check '%s/d%d'", cli, hks_hostile_root(), depth);
		int rc = hks_hostile_run(cmd, &text);
		printf("depth %d: status %d\n", depth, rc);
		if (depth <= 64) {
			assert_int_equal(rc, 0);
			assert_non_null(strstr(text, "1 files"));
		} else {
			assert_int_equal(rc, 1);
			assert_non_null(strstr(text, "nested deeper"));
		}
		free(text);
	}
}

/* ---- bnd: arguments checked before anything is made ---- */

static void test_bnd_arguments(void **state)
{
	(void)state;
	char hkx[1024], binder[1024], cmd[8192], *text = NULL;
	snprintf(hkx, sizeof(hkx), "%s", hks_hostile_path("x.hkx"));
	snprintf(binder, sizeof(binder), "%s", hks_hostile_path("x.anibnd"));
	write_spline_file(hkx, 2, 10);
	write_compressed_binder(binder, hkx);
	snprintf(cmd, sizeof(cmd), "'%s' bnd extract '%s' no_such_member.hkx -o '%s/xdir'", cli, binder, hks_hostile_root());
	assert_int_equal(hks_hostile_run(cmd, &text), 1);
	free(text);
	char dir[2048];
	snprintf(dir, sizeof(dir), "%s/xdir", hks_hostile_root());
	assert_int_equal(access(dir, F_OK), -1);
	static const char *const levels[] = {"1x", "0", "10", "-1", "", " 5"};
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		snprintf(cmd, sizeof(cmd), "'%s' bnd replace '%s' b.bin '%s' -o '%s/x2.anibnd' --deflate-level '%s'", cli, binder,
		         hkx, hks_hostile_root(), levels[i]);
		assert_int_equal(hks_hostile_run(cmd, &text), 2);
		free(text);
	}
	snprintf(cmd, sizeof(cmd), "'%s' bnd replace '%s' b.bin '%s' -o '%s/x2.anibnd' --deflate-level 5", cli, binder, hkx,
	         hks_hostile_root());
	assert_int_equal(hks_hostile_run(cmd, &text), 0);
	free(text);
}

/* encode IN.glb --fps: 1 to 10000 frames per second; 1e-9 encoded a 10^9-second clip with a
 * warning (the rate is checked before the input is read: no glTF needed). Plain decimals only:
 * strtod read "0x10" as 16 and " 30" as 30 (cli_parse_decimal, every number option). */
static void test_fps_bounds(void **state)
{
	(void)state;
	char cmd[8192], *text = NULL;
	static const char *const bad[] = {"1e-9", "0", "-30", "0.5", "nan", "inf", "10001", "30x",
	                                   "0x10", "0X1E", "0x1p5", " 30", "30 ", "", ".", "1e", "infinity"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "'%s' encode '%s/none.glb' -o '%s/none.hkx' --fps '%s'", cli, hks_hostile_root(),
		         hks_hostile_root(), bad[i]);
		assert_int_equal(hks_hostile_run(cmd, &text), 2);
		assert_non_null(strstr(text, "--fps wants a rate from 1 to 10000 frames per second"));
		free(text);
	}
	static const char *const good[] = {"1", "24", "30", "60", "10000", "+30", "29.97", "3e1", "1E4", ".5e2"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(cmd, sizeof(cmd), "'%s' encode '%s/none.glb' -o '%s/none.hkx' --fps '%s'", cli, hks_hostile_root(),
		         hks_hostile_root(), good[i]);
		hks_hostile_run(cmd, &text); /* fails later (no such input), not on the rate */
		assert_null(strstr(text, "--fps wants"));
		free(text);
	}
	/* the same parser behind decode --time-step and error's tolerances */
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s/none.hkx' -o '%s/none.json' --time-step 0x1p-3", cli,
	         hks_hostile_root(), hks_hostile_root());
	assert_int_equal(hks_hostile_run(cmd, &text), 2);
	assert_non_null(strstr(text, "--time-step wants a positive number of seconds"));
	free(text);
}

/* ---- SIGINT in the middle of a write: no temporary left, the target as it was ---- */

/* Does `dir` hold a .NAME.tmp-XXXXXX (an atomic write's temporary)? */
static bool temporary_in(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	bool found = false;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		found |= strstr(e->d_name, ".tmp-") != NULL;
	closedir(d);
	return found;
}

static bool temporary_in_root(void) { return temporary_in(hks_hostile_root()); }

static void check_old(const char *path)
{
	size_t n = 0;
	uint8_t *b = slurp(path, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(b, "old", 3);
	free(b);
}

static void remove_and_reraise(int sig)
{
	hks_atomic_remove_temporaries();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A child opens an atomic file on `target` (which holds "old"), writes `size` bytes and takes
 * SIGINT in a handler that calls hks_atomic_remove_temporaries (what the CLI installs): it must
 * die of the signal and leave the target as it was. */
static void interrupted_atomic_write(const char *target, size_t size)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGINT, remove_and_reraise);
		hks_atomic_file *f = NULL;
		hks_error err;
		static uint8_t buf[1 << 16];
		memset(buf, 7, sizeof(buf));
		if (size > sizeof(buf) || hks_atomic_open(target, NULL, &f, &err) != HKS_OK ||
		    hks_atomic_write(f, buf, size, &err) != HKS_OK)
			_exit(3);
		fflush(hks_atomic_stream(f));
		raise(SIGINT);
		_exit(4);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
	check_old(target);
}

static void test_sigint_mid_write(void **state)
{
	(void)state;
	char target[1024], in[1024], out[1024];
	snprintf(target, sizeof(target), "%s", hks_hostile_path("sig.bin"));
	snprintf(in, sizeof(in), "%s", hks_hostile_path("sig.hkx"));
	snprintf(out, sizeof(out), "%s", hks_hostile_path("sig.json"));
	hks_hostile_write(target, "old", 3);
	/* the library */
	interrupted_atomic_write(target, (size_t)1 << 16);
	assert_false(temporary_in_root());
	int st = 0;
	pid_t pid;

	/* the CLI: decode a long time-mode output; SIGINT once its temporary exists */
	write_spline_file(in, 20, 200);
	static const char *const steps[] = {"1e-3", "3e-4", "1e-4", "5e-5"};
	bool caught = false;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && !caught; i++) {
		hks_hostile_write(out, "old", 3);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);
			if (null >= 0) {
				dup2(null, 1);
				dup2(null, 2);
			}
			execl(cli, cli, "decode", in, "--time-step", steps[i], "-o", out, (char *)NULL);
			_exit(127);
		}
		bool seen = false, ended = false;
		for (int k = 0; k < 200000 && !seen && !ended; k++) {
			seen = temporary_in_root();
			if (!seen) {
				ended = waitpid(pid, &st, WNOHANG) == pid;
				struct timespec ts = {0, 100000};
				nanosleep(&ts, NULL);
			}
		}
		if (seen) {
			kill(pid, SIGINT);
			assert_int_equal(waitpid(pid, &st, 0), pid);
		} else if (!ended) {
			kill(pid, SIGKILL); /* neither a temporary nor an end in 20 s */
			waitpid(pid, &st, 0);
			fail_msg("decode --time-step %s: no temporary and no end", steps[i]);
		}
		printf("--time-step %s: temporary %s, %s %d\n", steps[i], seen ? "seen" : "not seen",
		       WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		if (seen && WIFSIGNALED(st)) {
			assert_int_equal(WTERMSIG(st), SIGINT);
			caught = true;
			check_old(out);
		} else {
			assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0); /* it finished first: try a longer one */
		}
		assert_false(temporary_in_root());
	}
	assert_true(caught);
}

/* PREFIX_anim.hkx and PREFIX_skel.hkx made by make_sample (beside the CLI), PREFIX.json the
 * animation decoded against the skeleton; the binder and output paths PREFIX.anibnd and
 * PREFIX_out.hkx named (each buffer 1024 bytes). */
static void make_sample_set(const char *prefix, char *anim, char *skel, char *json, char *binder, char *out)
{
	char name[256], cmd[8192], *text = NULL;
	snprintf(name, sizeof(name), "%s_anim.hkx", prefix);
	snprintf(anim, 1024, "%s", hks_hostile_path(name));
	snprintf(name, sizeof(name), "%s_skel.hkx", prefix);
	snprintf(skel, 1024, "%s", hks_hostile_path(name));
	snprintf(name, sizeof(name), "%s.json", prefix);
	snprintf(json, 1024, "%s", hks_hostile_path(name));
	snprintf(name, sizeof(name), "%s.anibnd", prefix);
	snprintf(binder, 1024, "%s", hks_hostile_path(name));
	snprintf(name, sizeof(name), "%s_out.hkx", prefix);
	snprintf(out, 1024, "%s", hks_hostile_path(name));
	char make_sample[1024];
	snprintf(make_sample, sizeof(make_sample), "%s", cli);
	char *slash = strrchr(make_sample, '/');
	assert_non_null(slash);
	snprintf(slash + 1, sizeof(make_sample) - (size_t)(slash + 1 - make_sample), "make_sample");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' && '%s' --skeleton '%s' && '%s' decode '%s' --skeleton '%s' -o '%s'",
	         make_sample, anim, make_sample, skel, cli, anim, skel, json);
	assert_int_equal(hks_hostile_run(cmd, &text), 0);
	free(text);
}

/* ---- (session 6, third pass) encode --into a member whose base name another member shares ---- */

/* The loader names such members by their full names ("B:N:\x\a000_000001.hkx"); check_replaceable
 * matched the base name only, so the animation was refused as "not a Havok file" (exit 2) and
 * the skeleton beside it was refused with the same wrong reason. */
static void test_into_shared_base_name(void **state)
{
	(void)state;
	char anim[1024], skel[1024], json[1024], binder[1024], out[1024], cmd[8192], *text = NULL;
	make_sample_set("sb", anim, skel, json, binder, out);
	size_t an = 0, sn = 0, bn = 0;
	uint8_t *a = slurp(anim, &an), *k = slurp(skel, &sn), *bytes = NULL;
	hks_error err;
	hks_bnd4 *b = NULL;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\x\\a000_000001.hkx", 1000001, 0x40, a, an, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\y\\a000_000001.hkx", 1000002, 0x40, k, sn, &err), HKS_OK);
	assert_int_equal(hks_bnd4_write(b, NULL, &bytes, &bn, &err), HKS_OK);
	hks_bnd4_free(b);
	free(a);
	free(k);

	/* the animation: replaced */
	hks_hostile_write(binder, bytes, bn);
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --skeleton '%s' -o '%s' --into '%s' --name 'N:\\x\\a000_000001.hkx' --no-backup",
	         cli, json, skel, out, binder);
	int st = hks_hostile_run(cmd, &text);
	if (st != 0)
		printf("%s\n", text);
	assert_int_equal(st, 0);
	assert_non_null(strstr(text, "replaced N:\\x\\a000_000001.hkx"));
	free(text);

	/* the skeleton: refused for what it is, the binder unchanged */
	hks_hostile_write(binder, bytes, bn);
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --skeleton '%s' -o '%s' --into '%s' --name 'N:\\y\\a000_000001.hkx' --no-backup",
	         cli, json, skel, out, binder);
	assert_int_equal(hks_hostile_run(cmd, &text), 2);
	assert_non_null(strstr(text, "holds no animation (1 skeleton(s))"));
	free(text);
	assert_file_holds(binder, bytes, bn);
	hks_buffer_free(NULL, bytes, bn);
}

/* ---- (session 6, third pass) error DIR_A DIR_B: B's animations past A's count ---- */

/* The pair's animations were A's only: a B file with more animations than its A file (here a
 * skeleton in A, an animation in B) was left out in silence, and with another pair compared the
 * command exited 0. Now the pair fails (exit 1) naming both files. */
static void test_error_dirs_extra_animations(void **state)
{
	(void)state;
	char cmd[8192], *text = NULL;
	char make_sample[1024];
	snprintf(make_sample, sizeof(make_sample), "%s", cli);
	char *slash = strrchr(make_sample, '/');
	assert_non_null(slash);
	snprintf(slash + 1, sizeof(make_sample) - (size_t)(slash + 1 - make_sample), "make_sample");
	const char *r = hks_hostile_root();
	snprintf(cmd, sizeof(cmd),
	         "mkdir -p '%s/ea/A' '%s/ea/B' && '%s' '%s/ea/A/x.hkx' && cp '%s/ea/A/x.hkx' '%s/ea/B/x.hkx' && "
	         "'%s' --skeleton '%s/ea/A/w.hkx' && cp '%s/ea/A/x.hkx' '%s/ea/B/w.hkx'",
	         r, r, make_sample, r, r, r, make_sample, r, r, r);
	assert_int_equal(hks_hostile_run(cmd, &text), 0);
	free(text);
	snprintf(cmd, sizeof(cmd), "'%s' error '%s/ea/A' '%s/ea/B'", cli, r, r);
	assert_int_equal(hks_hostile_run(cmd, &text), 1);
	assert_non_null(strstr(text, "w.hkx holds 1 animation(s)"));
	assert_non_null(strstr(text, "1 animations compared, 1 failed"));
	free(text);
	/* the same pair the other way round failed already (A's animation 0 is not in B) */
	snprintf(cmd, sizeof(cmd), "'%s' error '%s/ea/B' '%s/ea/A'", cli, r, r);
	assert_int_equal(hks_hostile_run(cmd, &text), 1);
	free(text);
}

/* ---- (session 6, third pass) SIGINT during a write to a path of 1,024 bytes or more ---- */

/* The temporaries' slots held 1,024-byte paths: a longer one (a deep folder, which the system
 * accepts up to PATH_MAX) was not registered, and SIGINT left its .NAME.tmp-XXXXXX behind. */
static void test_sigint_long_path(void **state)
{
	(void)state;
	char dir[3072], target[4096];
	int n = snprintf(dir, sizeof(dir), "%s", hks_hostile_root());
	for (int level = 0; level < 8; level++) {
		n += snprintf(dir + n, sizeof(dir) - (size_t)n, "/");
		for (int k = 0; k < 200; k++)
			dir[n++] = (char)('a' + level);
		dir[n] = 0;
		assert_true(mkdir(dir, 0700) == 0 || errno == EEXIST);
	}
	snprintf(target, sizeof(target), "%s/out.bin", dir);
	assert_true(strlen(target) > 1100);
	hks_hostile_write(target, "old", 3);
	interrupted_atomic_write(target, (size_t)1 << 12);
	assert_false(temporary_in(dir));
}

/* ---- (session 6, third pass) encode --into a member that cannot be read (KRAK, no Oodle) ---- */

/* check_replaceable took every load failure for a damaged member: a skeleton stored as a DCX
 * KRAK member, with no Oodle library to read it, was replaced by the animation (exit 0). Now a
 * member that cannot be read is refused (exit 2, binder unchanged). */
static void test_into_unreadable_member(void **state)
{
	(void)state;
	char anim[1024], skel[1024], json[1024], binder[1024], out[1024], cmd[8192], *text = NULL;
	make_sample_set("kr", anim, skel, json, binder, out);
	size_t an = 0, sn = 0, bn = 0, dn = 0;
	uint8_t *a = slurp(anim, &an), *k = slurp(skel, &sn), *bytes = NULL, *dflt = NULL;
	hks_error err;
	/* the skeleton as a DCX KRAK member (CONTAINERS.md §7: tag at 0x28, compressed size at 0x20,
	 * big-endian), its payload in the test stand-in's stored form ("HKSO", raw size, level, bytes) */
	assert_int_equal(hks_dcx_compress(k, sn, NULL, NULL, &dflt, &dn, &err), HKS_OK);
	size_t kn = HKS_DCX_HEADER_SIZE + 9 + sn;
	uint8_t *krak = (uint8_t *)malloc(kn);
	assert_non_null(krak);
	memcpy(krak, dflt, HKS_DCX_HEADER_SIZE);
	memcpy(krak + 0x28, "KRAK", 4);
	uint32_t cs = (uint32_t)(9 + sn);
	krak[0x20] = (uint8_t)(cs >> 24), krak[0x21] = (uint8_t)(cs >> 16), krak[0x22] = (uint8_t)(cs >> 8), krak[0x23] = (uint8_t)cs;
	memcpy(krak + HKS_DCX_HEADER_SIZE, "HKSO", 4);
	for (int i = 0; i < 4; i++)
		krak[HKS_DCX_HEADER_SIZE + 4 + i] = (uint8_t)(sn >> (8 * i));
	krak[HKS_DCX_HEADER_SIZE + 8] = 6;
	memcpy(krak + HKS_DCX_HEADER_SIZE + 9, k, sn);
	hks_dcx_info info;
	assert_int_equal(hks_dcx_read_info(krak, kn, &info, &err), HKS_OK);
	assert_string_equal(info.compression, "KRAK");
	hks_bnd4 *b = NULL;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\c\\a000_000001.hkx", 1000001, 0x40, a, an, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\c\\Skeleton.HKX", 1000002, 0x40 | HKS_BND4_ENTRY_COMPRESSED, krak, kn, &err),
	                 HKS_OK);
	assert_int_equal(hks_bnd4_write(b, NULL, &bytes, &bn, &err), HKS_OK);
	hks_bnd4_free(b);
	hks_buffer_free(NULL, dflt, dn);
	free(krak);
	free(a);
	free(k);

	hks_hostile_write(binder, bytes, bn);
	snprintf(cmd, sizeof(cmd),
	         "env -u HKSPLINE_OODLE '%s' encode '%s' --like '%s' -o '%s' --into '%s' --name Skeleton.HKX --no-backup", cli,
	         json, anim, out, binder);
	assert_int_equal(hks_hostile_run(cmd, &text), 2);
	assert_non_null(strstr(text, "cannot be read, so what it holds is unknown"));
	assert_non_null(strstr(text, "KRAK"));
	free(text);
	assert_file_holds(binder, bytes, bn);
	/* the plain animation beside it is still replaced */
	snprintf(cmd, sizeof(cmd),
	         "env -u HKSPLINE_OODLE '%s' encode '%s' --like '%s' -o '%s' --into '%s' --name a000_000001.hkx --no-backup", cli,
	         json, anim, out, binder);
	assert_int_equal(hks_hostile_run(cmd, &text), 0);
	free(text);
	hks_buffer_free(NULL, bytes, bn);
}

/* ---- (session 6, third pass) outputs over the input binder ---- */

/* encode --like B:M -o B and recompress B -o B replaced the binder B (its other members, names,
 * DCX) with the bare .hkx; recompress IN --record IN replaced the Havok file with its record; all
 * with exit 0. Now each is refused (exit 2) and B / IN stay as they were. */
static void test_output_over_input_binder(void **state)
{
	(void)state;
	char anim[1024], json[1024], binder[1024], cmd[8192], *text = NULL;
	snprintf(anim, sizeof(anim), "%s", hks_hostile_path("ob_anim.hkx"));
	snprintf(json, sizeof(json), "%s", hks_hostile_path("ob.json"));
	snprintf(binder, sizeof(binder), "%s", hks_hostile_path("ob.anibnd"));
	write_spline_file(anim, 2, 30);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' -o '%s'", cli, anim, json);
	assert_int_equal(hks_hostile_run(cmd, &text), 0);
	free(text);
	size_t an = 0, bn = 0;
	uint8_t *a = slurp(anim, &an), *bytes = NULL;
	hks_error err;
	hks_bnd4 *b = NULL;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\c\\a000_000001.hkx", 1000001, 0x40, a, an, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\c\\a.tae", 1000002, 0x40, "TAE ", 4, &err), HKS_OK);
	assert_int_equal(hks_bnd4_write(b, NULL, &bytes, &bn, &err), HKS_OK);
	hks_bnd4_free(b);
	char cmds[4][4096];
	snprintf(cmds[0], sizeof(cmds[0]), "'%s' encode '%s' --like '%s:a000_000001.hkx' -o '%s'", cli, json, binder, binder);
	snprintf(cmds[1], sizeof(cmds[1]), "'%s' recompress '%s' -o '%s'", cli, binder, binder);
	snprintf(cmds[2], sizeof(cmds[2]), "'%s' recompress '%s' --record '%s'", cli, binder, binder);
	snprintf(cmds[3], sizeof(cmds[3]), "'%s' recompress '%s' --record '%s'", cli, anim, anim);
	static const char *const want[4] = {"is a binder / DCX", "-o names the binder / DCX", "--record names the input",
	                                    "--record names the input"};
	for (int i = 0; i < 4; i++) {
		hks_hostile_write(binder, bytes, bn);
		int st = hks_hostile_run(cmds[i], &text);
		if (st != 2 || !strstr(text, want[i]))
			printf("%s\n-> %d: %s\n", cmds[i], st, text);
		assert_int_equal(st, 2);
		assert_non_null(strstr(text, want[i]));
		free(text);
		assert_file_holds(i == 3 ? anim : binder, i == 3 ? a : bytes, i == 3 ? an : bn);
	}
	/* in place over a loose file: with --exact a rewrite of the same bytes; without it the predictor's lossy
	 * re-encode would replace the clip, refused since session 24 */
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' --exact -o '%s'", cli, anim, anim);
	assert_int_equal(hks_hostile_run(cmd, &text), 0);
	free(text);
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' -o '%s'", cli, anim, anim);
	assert_int_equal(hks_hostile_run(cmd, &text), 2);
	assert_non_null(strstr(text, "-o names the input"));
	free(text);
	assert_file_holds(anim, a, an);
	free(a);
	hks_buffer_free(NULL, bytes, bn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gltf_unmatched_names_outlive_json),
		cmocka_unit_test(test_stdout_write_error),
		cmocka_unit_test(test_recompress_pair),
		cmocka_unit_test(test_replace_compressed_member),
		cmocka_unit_test(test_file_size_limit_signal),
		cmocka_unit_test(test_pack_hostile_folder),
		cmocka_unit_test(test_into_names),
		cmocka_unit_test(test_frames_json_budget),
		cmocka_unit_test(test_deep_folders),
		cmocka_unit_test(test_bnd_arguments),
		cmocka_unit_test(test_fps_bounds),
		cmocka_unit_test(test_sigint_mid_write),
		cmocka_unit_test(test_into_shared_base_name),
		cmocka_unit_test(test_error_dirs_extra_animations),
		cmocka_unit_test(test_sigint_long_path),
		cmocka_unit_test(test_into_unreadable_member),
		cmocka_unit_test(test_output_over_input_binder),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
