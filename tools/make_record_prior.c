/*
 * make_record_prior: train the start state of the record body coder's model (record version 14,
 * docs/RECORD.md "Version 14") and write it as C source (src/encode/record_prior.c), or measure a
 * trained state on other records.
 *
 * usage: make_record_prior [options] TRAIN...
 *   TRAIN: record files (`hkspline recompress FILE --record OUT`, magic "HKSF") or @LIST, a file naming
 *          one record file a line; the records' bodies are decoded and coded in the order given, each
 *          record's model starting from where the previous one ended (in the parts --parts names), and
 *          the final state is the start state
 *   -o OUT.c           write the state as C source (src/encode/record_prior.c)
 *   --note TEXT        what the records are, for the source's head comment
 *   --parts LIST       which parts are trained, comma-separated: knot (the knot model's slots), gap (the
 *                      gap model's slots), knot-weights, gap-weights, byte (the byte mixers' weights and
 *                      update counts), final (the final mixer's weights); default knot,gap,knot-weights
 *   --cap N            the updates a trained slot counts as, at most (1..255; default 255)
 *   --mixer-cap N      the same for the byte mixers' weight sets (0..255; default 255)
 *   --eval NAME=SRC    also code the records of SRC (a record file or @LIST) with version 13's model, the
 *                      trained state and the built-in version 14 state, and print the coded bytes of each
 *                      (repeatable)
 *   --fields SRC       print what coding the records of SRC costs, by field of the body and by the decisions
 *                      coded outside the byte model (knot symbols, correction flags), each record at its own
 *                      version with that version's start state; trains nothing (TRAIN may be empty)
 *
 * The state holds only the model's statistics (slot probabilities and counts, mixer weights), never the
 * bytes of a body; the output is the same for the same records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "record.h"

typedef struct body_set {
	uint8_t **body;
	size_t *size;
	unsigned *version; /* each record's */
	size_t n, cap;
} body_set;

static hks_ctx g_ctx;

static void die(const char *msg, const char *what)
{
	fprintf(stderr, "make_record_prior: %s%s%s\n", msg, what ? ": " : "", what ? what : "");
	exit(1);
}

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot open", path);
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = (uint8_t *)malloc(cap);
	for (;;) {
		if (!b)
			die("out of memory", NULL);
		n += fread(b + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		b = (uint8_t *)realloc(b, cap);
	}
	fclose(f);
	*size = n;
	return b;
}

static void add_body(body_set *s, uint8_t *body, size_t size, unsigned version)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->body = (uint8_t **)realloc(s->body, s->cap * sizeof(*s->body));
		s->size = (size_t *)realloc(s->size, s->cap * sizeof(*s->size));
		s->version = (unsigned *)realloc(s->version, s->cap * sizeof(*s->version));
		if (!s->body || !s->size || !s->version)
			die("out of memory", NULL);
	}
	s->body[s->n] = body;
	s->version[s->n] = version;
	s->size[s->n++] = size;
}

static void free_bodies(body_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->body[i]);
	free(s->body);
	free(s->size);
	free(s->version);
}

/* One record's body: "HKSR", version, flags, varint body size, then the coded (flags 2) or stored (0) body */
static void add_record(body_set *s, const uint8_t *r, size_t n, const char *path)
{
	if (n < 7 || memcmp(r, HKS_RECORD_MAGIC, 4) != 0)
		die("not a record", path);
	unsigned version = r[4], flags = r[5];
	uint64_t size = 0;
	size_t at = 6;
	for (unsigned shift = 0; at < n && shift < 64; shift += 7) {
		size |= (uint64_t)(r[at] & 127u) << shift;
		if (!(r[at++] & 128u))
			break;
	}
	if (size > ((size_t)1 << 26))
		die("body too large", path);
	uint8_t *body = (uint8_t *)malloc(size ? (size_t)size : 1);
	if (!body)
		die("out of memory", NULL);
	if (flags == 0) {
		if (n - at != size)
			die("stored body of the wrong size", path);
		memcpy(body, r + at, (size_t)size);
	} else if (flags == HKS_RECORD_FLAG_MODEL && version >= 9) {
		int whole = 0;
		if (hks_rec_model_decode(&g_ctx, r + at, n - at, version, body, (size_t)size, &whole) != HKS_OK || !whole)
			die("a coded body does not decode", path);
	} else {
		die("unsupported record (version 9 and up, stored or coded)", path);
	}
	add_body(s, body, (size_t)size, version);
}

static void add_record_file(body_set *s, const char *path)
{
	size_t n;
	uint8_t *data = read_file(path, &n);
	hks_record_file_entry *e = NULL;
	uint32_t count = 0;
	if (hks_record_file_read(data, n, NULL, &e, &count, NULL) != HKS_OK)
		die("not a record file", path);
	for (uint32_t i = 0; i < count; i++)
		add_record(s, e[i].record, e[i].size, path);
	hks_buffer_free(NULL, e, count * sizeof(*e));
	free(data);
}

static void add_source(body_set *s, const char *arg)
{
	if (arg[0] != '@') {
		add_record_file(s, arg);
		return;
	}
	FILE *f = fopen(arg + 1, "r");
	if (!f)
		die("cannot open", arg + 1);
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\r\n");
		line[len] = 0;
		if (len)
			add_record_file(s, line);
	}
	fclose(f);
}

static unsigned parse_parts(const char *list)
{
	static const struct {
		const char *name;
		unsigned group;
	} names[] = {{"knot", HKS_REC_PRIOR_KNOT_SLOTS},          {"gap", HKS_REC_PRIOR_GAP_SLOTS},
	             {"knot-weights", HKS_REC_PRIOR_KNOT_WEIGHTS}, {"gap-weights", HKS_REC_PRIOR_GAP_WEIGHTS},
	             {"byte", HKS_REC_PRIOR_BYTE_MIXERS},          {"final", HKS_REC_PRIOR_FINAL_MIXER}};
	unsigned groups = 0;
	while (*list) {
		size_t len = strcspn(list, ",");
		unsigned i = 0;
		while (i < sizeof(names) / sizeof(names[0]) && !(strlen(names[i].name) == len && !strncmp(names[i].name, list, len)))
			i++;
		if (i == sizeof(names) / sizeof(names[0]))
			die("unknown part in --parts", list);
		groups |= names[i].group;
		list += len + (list[len] == ',');
	}
	return groups;
}

static uint64_t coded_bytes(const body_set *s, unsigned version, const hks_rec_prior *prior)
{
	uint64_t total = 0;
	hks_bytebuf b;
	hks_bytebuf_init(&b, &g_ctx);
	for (size_t i = 0; i < s->n; i++) {
		b.size = 0;
		if (hks_rec_model_encode_prior(&g_ctx, s->body[i], s->size[i], version, prior, &b) != HKS_OK)
			die("coding failed", NULL);
		total += b.size;
	}
	hks_bytebuf_free(&b);
	return total;
}

static void write_source(const char *path, const hks_rec_prior *p, const hks_rec_prior_options *opt, size_t bodies,
                         uint64_t body_bytes, const char *note, unsigned version, int argc, char **argv)
{
	FILE *f = fopen(path, "w");
	if (!f)
		die("cannot write", path);
	fprintf(f, "/*\n * Generated by tools/make_record_prior.c; do not edit (docs/RECORD.md \"Version %u\").\n"
	           " * The start state of the record body coder's model for record version %u and up: the statistics (slot\n"
	           " * probabilities and update counts, mixer weights) in which the state differs from a fresh version 13\n"
	           " * model, after coding %zu record bodies (%llu bytes) in turn with the model carried from each to the\n"
	           " * next. Only statistics are here, not the bodies. Parts 0x%02x (record.h HKS_REC_PRIOR_*); a slot\n"
	           " * counts as at most %u updates, a byte mixer weight set as at most %u.\n",
	        version, version, bodies, (unsigned long long)body_bytes, opt->groups, opt->seen_cap, opt->mixer_seen_cap);
	if (note) { /* wrapped at about 100 columns */
		fprintf(f, " * Records:");
		size_t col = 11;
		for (const char *w = note; *w;) {
			size_t len = strcspn(w, " ");
			if (col + 1 + len > 100) {
				fprintf(f, "\n *");
				col = 2;
			}
			fprintf(f, " %.*s", (int)len, w);
			col += 1 + len;
			w += len + (w[len] == ' ');
		}
		fprintf(f, "\n");
	}
	fprintf(f, " * Command: make_record_prior");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *slash = strrchr(a, '/');
		int list = a[0] == '@';
		if (a[0] != '-' && slash)
			a = slash + 1; /* the inputs by their names, not the machine's folders */
		if (!strcmp(argv[i - 1], "--note"))
			a = "...";
		fprintf(f, " %s%s", list && a[0] != '@' ? "@" : "", a);
	}
	fprintf(f, "\n */\n#include \"record.h\"\n\n");
	fprintf(f, "static const hks_rec_prior_slot slots[%u] = {", p->slots ? p->slots : 1u);
	for (uint32_t i = 0; i < p->slots; i++)
		fprintf(f, "%s{%u,%u,%u},", i % 8 ? "" : "\n\t", (unsigned)p->slot[i].index, (unsigned)p->slot[i].prob,
		        (unsigned)p->slot[i].seen);
	fprintf(f, "%s\n};\n", p->slots ? "" : "\n\t{0, 0, 0}");
	fprintf(f, "static const hks_rec_prior_value values[%u] = {", p->values ? p->values : 1u);
	for (uint32_t i = 0; i < p->values; i++)
		fprintf(f, "%s{%u,%d},", i % 8 ? "" : "\n\t", (unsigned)p->value[i].index, (int)p->value[i].value);
	fprintf(f, "%s\n};\n\n", p->values ? "" : "\n\t{0, 0}");
	fprintf(f, "const hks_rec_prior hks_rec_prior_v%u = {slots, %u, values, %u};\n", version, p->slots, p->values);
	if (fclose(f) != 0)
		die("cannot write", path);
}

/* --fields: the coded bytes of SRC's records by cost class, the largest first */
static void print_costs(const char *src)
{
	body_set s = {0};
	add_source(&s, src);
	double bits[HKS_REC_COST_CLASSES] = {0}, total = 0.0;
	for (size_t i = 0; i < s.n; i++)
		if (hks_rec_model_costs(&g_ctx, s.body[i], s.size[i], s.version[i], bits) != HKS_OK)
			die("coding failed", src);
	unsigned order[HKS_REC_COST_CLASSES];
	for (unsigned c = 0; c < HKS_REC_COST_CLASSES; c++) {
		order[c] = c;
		total += bits[c];
	}
	for (unsigned a = 1; a < HKS_REC_COST_CLASSES; a++) /* insertion sort by cost, largest first */
		for (unsigned b = a; b > 0 && bits[order[b]] > bits[order[b - 1]]; b--) {
			unsigned t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	printf("%s: %zu bodies, %.0f B as measured (within a few bytes a body of the coded size; the records' heads not "
	       "counted)\n",
	       src, s.n, total / 8.0);
	for (unsigned c = 0; c < HKS_REC_COST_CLASSES && bits[order[c]] > 0.0; c++)
		printf("  %-52s %10.0f B %6.2f %%\n", hks_rec_model_cost_name(order[c]), bits[order[c]] / 8.0,
		       100.0 * bits[order[c]] / total);
	fflush(stdout);
	free_bodies(&s);
}

int main(int argc, char **argv)
{
	hks_ctx_init(&g_ctx, NULL, (uint64_t)1 << 30, NULL);
	hks_rec_prior_options opt = {HKS_REC_PRIOR_KNOT_SLOTS | HKS_REC_PRIOR_GAP_SLOTS | HKS_REC_PRIOR_KNOT_WEIGHTS, 255,
	                             255};
	const char *out = NULL, *note = NULL;
	unsigned version = 14; /* the record version the state is for: its name (hks_rec_prior_v14, _v16, _v19) */
	const char *eval[16], *fields[16];
	unsigned evals = 0, nfields = 0;
	body_set train = {0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(a, "--note") && i + 1 < argc)
			note = argv[++i];
		else if (!strcmp(a, "--version") && i + 1 < argc)
			version = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--parts") && i + 1 < argc)
			opt.groups = parse_parts(argv[++i]);
		else if (!strcmp(a, "--cap") && i + 1 < argc)
			opt.seen_cap = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--mixer-cap") && i + 1 < argc)
			opt.mixer_seen_cap = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--eval") && i + 1 < argc && evals < 16)
			eval[evals++] = argv[++i];
		else if (!strcmp(a, "--fields") && i + 1 < argc && nfields < 16)
			fields[nfields++] = argv[++i];
		else if (a[0] == '-')
			die("usage: make_record_prior [-o OUT.c] [--version 14|16|19] [--note TEXT] [--parts LIST] [--cap N] [--mixer-cap N] "
			    "[--eval NAME=SRC]... [--fields SRC]... "
			    "TRAIN...",
			    NULL);
		else
			add_source(&train, a);
	}
	if (opt.seen_cap < 1 || opt.seen_cap > 255 || opt.mixer_seen_cap > 255)
		die("--cap is 1..255, --mixer-cap 0..255", NULL);
	if (version != 14 && version != 16 && version != 19)
		die("--version is 14, 16 or 19 (the versions with a start state of their own)", NULL);
	for (unsigned f = 0; f < nfields; f++)
		print_costs(fields[f]);
	if (nfields && !train.n) {
		if (evals)
			die("--eval measures a trained state: it needs training records", NULL);
		return 0;
	}
	if (!train.n)
		die("no training records", NULL);
	uint64_t train_bytes = 0;
	for (size_t i = 0; i < train.n; i++)
		train_bytes += train.size[i];
	hks_rec_prior prior;
	if (hks_rec_prior_train(&g_ctx, (const uint8_t *const *)train.body, train.size, train.n, &opt, &prior) != HKS_OK)
		die("training failed", NULL);
	printf("trained on %zu bodies (%llu B): %u slots, %u values\n", train.n, (unsigned long long)train_bytes,
	       prior.slots, prior.values);
	if (out)
		write_source(out, &prior, &opt, train.n, train_bytes, note, version, argc, argv);
	for (unsigned e = 0; e < evals; e++) {
		const char *eq = strchr(eval[e], '=');
		body_set s = {0};
		add_source(&s, eq ? eq + 1 : eval[e]);
		uint64_t v13 = coded_bytes(&s, 13, NULL), trained = coded_bytes(&s, 14, &prior),
		         builtin = coded_bytes(&s, 14, &hks_rec_prior_v14), builtin16 = coded_bytes(&s, 14, &hks_rec_prior_v16),
		         builtin19 = coded_bytes(&s, 14, &hks_rec_prior_v19);
		printf("%.*s: %zu bodies, coded v13 %llu B, trained %llu B (%+.3f %%), built-in v14 %llu B, built-in v16 %llu B, "
		       "built-in v19 %llu B\n",
		       eq ? (int)(eq - eval[e]) : 0, eval[e], s.n, (unsigned long long)v13, (unsigned long long)trained,
		       100.0 * ((double)trained - (double)v13) / (double)v13, (unsigned long long)builtin,
		       (unsigned long long)builtin16, (unsigned long long)builtin19);
		fflush(stdout);
		free_bodies(&s);
	}
	hks_rec_prior_free(&g_ctx, &prior);
	free_bodies(&train);
	return 0;
}
