/*
 * Havok XML reader on small documents written here: the hkpackfile dialect
 * (Havok Content Tools) and the hktagfile v1 dialect (the corpus's Skyrim XML
 * files), plus malformed documents that must fail cleanly.
 */
#include "hks_test.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char packfile_xml[] =
    "<?xml version=\"1.0\" encoding=\"ascii\"?>\n"
    "<hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\" toplevelobject=\"#0010\">\n"
    "  <hksection name=\"__data__\">\n"
    "    <hkobject name=\"#0010\" class=\"hkRootLevelContainer\" signature=\"0x2772c11e\">\n"
    "      <hkparam name=\"namedVariants\" numelements=\"1\">\n"
    "        <hkobject>\n"
    "          <hkparam name=\"name\">Merged Animation Container</hkparam>\n"
    "          <hkparam name=\"className\">hkaAnimationContainer</hkparam>\n"
    "          <hkparam name=\"variant\">#0011</hkparam>\n"
    "        </hkobject>\n"
    "      </hkparam>\n"
    "    </hkobject>\n"
    "    <hkobject name=\"#0011\" class=\"hkaAnimationContainer\" signature=\"0x8dc20333\">\n"
    "      <hkparam name=\"skeletons\" numelements=\"1\">#0014</hkparam>\n"
    "      <hkparam name=\"animations\" numelements=\"1\">#0012</hkparam>\n"
    "      <hkparam name=\"bindings\" numelements=\"1\">#0013</hkparam>\n"
    "      <hkparam name=\"attachments\" numelements=\"0\"></hkparam>\n"
    "    </hkobject>\n"
    "    <hkobject name=\"#0012\" class=\"hkaSplineCompressedAnimation\" signature=\"0x792ee0bb\">\n"
    "      <hkparam name=\"type\">HK_SPLINE_COMPRESSED_ANIMATION</hkparam>\n"
    "      <hkparam name=\"duration\">1.500000</hkparam>\n"
    "      <hkparam name=\"numberOfTransformTracks\">2</hkparam>\n"
    "      <hkparam name=\"numberOfFloatTracks\">1</hkparam>\n"
    "      <hkparam name=\"extractedMotion\">#0015</hkparam>\n"
    "      <hkparam name=\"annotationTracks\" numelements=\"2\">\n"
    "        <hkobject><hkparam name=\"trackName\">Root</hkparam>"
    "<hkparam name=\"annotations\" numelements=\"0\"></hkparam></hkobject>\n"
    "        <hkobject><hkparam name=\"trackName\">Spine</hkparam></hkobject>\n"
    "      </hkparam>\n"
    "      <hkparam name=\"numFrames\">46</hkparam>\n"
    "      <hkparam name=\"numBlocks\">1</hkparam>\n"
    "      <hkparam name=\"maxFramesPerBlock\">256</hkparam>\n"
    "      <hkparam name=\"maskAndQuantizationSize\">12</hkparam>\n"
    "      <hkparam name=\"blockDuration\">8.500000</hkparam>\n"
    "      <hkparam name=\"blockInverseDuration\">0.117647</hkparam>\n"
    "      <hkparam name=\"frameDuration\">0.033333</hkparam>\n"
    "      <hkparam name=\"blockOffsets\" numelements=\"1\">0</hkparam>\n"
    "      <hkparam name=\"floatBlockOffsets\" numelements=\"1\">16</hkparam>\n"
    "      <hkparam name=\"transformOffsets\" numelements=\"0\"></hkparam>\n"
    "      <hkparam name=\"floatOffsets\" numelements=\"0\"></hkparam>\n"
    "      <hkparam name=\"data\" numelements=\"20\">\n"
    "        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
    "        253 254 255 0\n"
    "      </hkparam>\n"
    "      <hkparam name=\"endian\">0</hkparam>\n"
    "    </hkobject>\n"
    "    <hkobject name=\"#0013\" class=\"hkaAnimationBinding\" signature=\"0x66eac971\">\n"
    "      <hkparam name=\"originalSkeletonName\">Master</hkparam>\n"
    "      <hkparam name=\"animation\">#0012</hkparam>\n"
    "      <hkparam name=\"transformTrackToBoneIndices\" numelements=\"2\">0 -1</hkparam>\n"
    "      <hkparam name=\"floatTrackToFloatSlotIndices\" numelements=\"1\">0</hkparam>\n"
    "      <hkparam name=\"blendHint\">ADDITIVE</hkparam>\n"
    "    </hkobject>\n"
    "    <hkobject name=\"#0014\" class=\"hkaSkeleton\" signature=\"0x366e8220\">\n"
    "      <hkparam name=\"name\">Master</hkparam>\n"
    "      <hkparam name=\"parentIndices\" numelements=\"2\">-1 0</hkparam>\n"
    "      <hkparam name=\"bones\" numelements=\"2\">\n"
    "        <hkobject><hkparam name=\"name\">Root</hkparam><hkparam name=\"lockTranslation\">false</hkparam></hkobject>\n"
    "        <hkobject><hkparam name=\"name\">Spine</hkparam><hkparam name=\"lockTranslation\">true</hkparam></hkobject>\n"
    "      </hkparam>\n"
    "      <hkparam name=\"referencePose\" numelements=\"2\">\n"
    "        (0.000000 0.000000 0.000000 0.000000)(0.000000 0.000000 0.000000 1.000000)(1.000000 1.000000 1.000000 0.000000)\n"
    "        (0.000000 0.500000 0.000000 0.000000)(0.000000 0.000000 0.000000 1.000000)(1.000000 1.000000 1.000000 0.000000)\n"
    "      </hkparam>\n"
    "      <hkparam name=\"referenceFloats\" numelements=\"1\">0.250000</hkparam>\n"
    "      <hkparam name=\"floatSlots\" numelements=\"1\"><hkcstring>Blink</hkcstring></hkparam>\n"
    "    </hkobject>\n"
    "    <hkobject name=\"#0015\" class=\"hkaDefaultAnimatedReferenceFrame\" signature=\"0x6d85e445\">\n"
    "      <hkparam name=\"up\">(0.000000 1.000000 0.000000 0.000000)</hkparam>\n"
    "      <hkparam name=\"forward\">(0.000000 0.000000 1.000000 0.000000)</hkparam>\n"
    "      <hkparam name=\"duration\">1.500000</hkparam>\n"
    "      <hkparam name=\"referenceFrameSamples\" numelements=\"2\">(0.0 0.0 0.0 0.0) (0.0 0.0 0.25 0.0)</hkparam>\n"
    "    </hkobject>\n"
    "  </hksection>\n"
    "</hkpackfile>\n";

static const char tagfile_xml[] =
    "<?xml version=\"1.0\" encoding=\"us-ascii\"?>\n"
    "<hktagfile version=\"1\">\n"
    "  <class name=\"hkaBone\" version=\"0\"><member name=\"name\" type=\"string\" /></class>\n"
    "  <object id=\"#0001\" type=\"hkRootLevelContainer\">\n"
    "    <array name=\"namedVariants\" size=\"1\">\n"
    "      <struct>\n"
    "        <string name=\"name\">Animation Container</string>\n"
    "        <string name=\"className\">hkaAnimationContainer</string>\n"
    "        <ref name=\"variant\">#0002</ref>\n"
    "      </struct>\n"
    "    </array>\n"
    "  </object>\n"
    "  <object id=\"#0002\" type=\"hkaAnimationContainer\">\n"
    "    <array name=\"animations\" size=\"1\"><ref>#0003</ref></array>\n"
    "    <array name=\"bindings\" size=\"1\"><ref>#0005</ref></array>\n"
    "  </object>\n"
    "  <object id=\"#0003\" type=\"hkaSplineCompressedAnimation\">\n"
    "    <int name=\"type\">3</int>\n"
    "    <real name=\"duration\">x40d55555 <!-- 6.66667 --></real>\n"
    "    <int name=\"numberOfTransformTracks\">1</int>\n"
    "    <ref name=\"extractedMotion\">#0004</ref>\n"
    "    <array name=\"annotationTracks\" size=\"1\"><ref>#0006</ref></array>\n"
    "    <int name=\"numFrames\">201</int>\n"
    "    <int name=\"numBlocks\">1</int>\n"
    "    <int name=\"maxFramesPerBlock\">256</int>\n"
    "    <int name=\"maskAndQuantizationSize\">4</int>\n"
    "    <real name=\"blockDuration\">x41080000 <!-- 8.5 --></real>\n"
    "    <real name=\"blockInverseDuration\">x7fc00001 <!-- a NaN, kept bit for bit --></real>\n"
    "    <real name=\"frameDuration\">x3d088889</real>\n"
    "    <array name=\"blockOffsets\" size=\"1\">\n      0 \n    </array>\n"
    "    <array name=\"floatBlockOffsets\" size=\"1\">\n      8 \n    </array>\n"
    "    <array name=\"data\" size=\"8\">\n      69 2 4 0 \n      255 0 1 2 \n    </array>\n"
    "  </object>\n"
    "  <object id=\"#0004\" type=\"hkaDefaultAnimatedReferenceFrame\">\n"
    "    <vec4 name=\"up\">x00000000 <!-- 0.0 --> x00000000 x3f800000 x00000000</vec4>\n"
    "    <vec4 name=\"forward\">x3f800000 x00000000 x00000000 x00000000</vec4>\n"
    "    <real name=\"duration\">x40d55555</real>\n"
    "    <array name=\"referenceFrameSamples\" size=\"2\">\n"
    "      <vec4>x00000000 x00000000 x00000000 x00000000</vec4>\n"
    "      <vec4>x3f800000 x40000000 x40400000 x00000000</vec4>\n"
    "    </array>\n"
    "  </object>\n"
    "  <object id=\"#0005\" type=\"hkaAnimationBinding\">\n"
    "    <string name=\"originalSkeletonName\">NPC Root [Root]</string>\n"
    "    <ref name=\"animation\">#0003</ref>\n"
    "  </object>\n"
    "  <object id=\"#0006\" type=\"hkaAnnotationTrack\">\n"
    "    <string name=\"trackName\">NPC Root [Root]</string>\n"
    "  </object>\n"
    "</hktagfile>\n";

static hks_result read_text(const char *text, size_t len, hks_file **file, hks_error *e)
{
	*file = NULL;
	return hks_file_read(text, len, NULL, file, e);
}

static void test_hkpackfile_dialect(void **state)
{
	(void)state;
	hks_file *f;
	hks_error e;
	if (read_text(packfile_xml, strlen(packfile_xml), &f, &e) != HKS_OK)
		fail_msg("%s", e.message);
	assert_int_equal(f->container, HKS_CONTAINER_XML);
	assert_string_equal(f->sdk, "hk_2010.2.0-r1");
	assert_int_equal(f->file_version, 8);
	assert_int_equal(f->num_animations, 1);
	const hks_animation *a = &f->animations[0];
	assert_int_equal(a->kind, HKS_ANIMATION_SPLINE);
	assert_int_equal(a->type, 5); /* the 2010 enum value of HK_SPLINE_COMPRESSED_ANIMATION (§3.3) */
	assert_true(a->duration == 1.5f);
	assert_int_equal(a->number_of_transform_tracks, 2);
	assert_int_equal(a->number_of_float_tracks, 1);
	assert_int_equal(a->num_annotation_tracks, 2);
	assert_string_equal(a->annotation_track_names[1], "Spine");
	assert_int_equal(a->spline.num_frames, 46);
	assert_int_equal(a->spline.mask_and_quantization_size, 12);
	assert_true(a->spline.block_duration == 8.5f);
	assert_true(a->spline.block_inverse_duration == 0.117647f);
	assert_int_equal(a->spline.num_block_offsets, 1);
	assert_int_equal(a->spline.float_block_offsets[0], 16);
	assert_int_equal(a->spline.num_transform_offsets, 0);
	assert_int_equal(a->spline.data_size, 20);
	assert_int_equal(a->spline.data[0], 1);
	assert_int_equal(a->spline.data[18], 255);
	assert_int_equal(a->reference_frame, 0);
	const hks_reference_frame *rf = &f->reference_frames[0];
	assert_string_equal(rf->class_name, "hkaDefaultAnimatedReferenceFrame");
	assert_true(rf->up[1] == 1.0f && rf->forward[2] == 1.0f);
	assert_int_equal(rf->num_samples, 2);
	assert_true(rf->samples[1][2] == 0.25f);
	assert_int_equal(f->num_bindings, 1);
	assert_int_equal(f->bindings[0].animation, 0);
	assert_int_equal(f->bindings[0].num_transform_track_to_bone_indices, 2);
	assert_int_equal(f->bindings[0].transform_track_to_bone_indices[1], -1);
	assert_int_equal(f->bindings[0].blend_hint, 2);
	assert_int_equal(f->num_skeletons, 1);
	const hks_skeleton *s = &f->skeletons[0];
	assert_string_equal(s->name, "Master");
	assert_int_equal(s->num_bones, 2);
	assert_string_equal(s->bone_names[1], "Spine");
	assert_int_equal(s->lock_translation[0], 0);
	assert_int_equal(s->lock_translation[1], 1);
	assert_int_equal(s->num_parent_indices, 2);
	assert_int_equal(s->parent_indices[0], -1);
	assert_int_equal(s->num_reference_pose, 2);
	assert_true(s->reference_pose[1].translation[1] == 0.5f);
	assert_true(s->reference_pose[1].rotation[3] == 1.0f);
	assert_true(s->reference_pose[1].scale[2] == 1.0f);
	assert_int_equal(s->num_reference_floats, 1);
	assert_int_equal(s->num_float_slots, 1);
	assert_string_equal(s->float_slots[0], "Blink");
	/* XML files cannot be written back as packfiles */
	uint8_t *out;
	size_t out_size;
	assert_int_equal(hks_file_write(f, NULL, &out, &out_size, &e), HKS_E_UNSUPPORTED);
	hks_file_free(f);
}

static void test_hktagfile_dialect(void **state)
{
	(void)state;
	hks_file *f;
	hks_error e;
	if (read_text(tagfile_xml, strlen(tagfile_xml), &f, &e) != HKS_OK)
		fail_msg("%s", e.message);
	assert_int_equal(f->container, HKS_CONTAINER_XML);
	assert_string_equal(f->sdk, "hktagfile-1");
	assert_int_equal(f->num_animations, 1);
	const hks_animation *a = &f->animations[0];
	assert_int_equal(a->kind, HKS_ANIMATION_SPLINE);
	assert_int_equal(a->type, 3);
	assert_int_equal(hks_f32_bits(a->duration), 0x40d55555u);
	assert_int_equal(a->number_of_float_tracks, 0); /* omitted member = default */
	assert_int_equal(a->num_annotation_tracks, 1);
	assert_string_equal(a->annotation_track_names[0], "NPC Root [Root]");
	assert_int_equal(a->spline.num_frames, 201);
	assert_int_equal(hks_f32_bits(a->spline.block_duration), 0x41080000u);
	assert_int_equal(hks_f32_bits(a->spline.block_inverse_duration), 0x7fc00001u); /* NaN payload kept */
	assert_int_equal(hks_f32_bits(a->spline.frame_duration), 0x3d088889u);
	assert_int_equal(a->spline.num_float_block_offsets, 1);
	assert_int_equal(a->spline.float_block_offsets[0], 8);
	assert_int_equal(a->spline.num_float_offsets, 0);
	static const uint8_t data[8] = {69, 2, 4, 0, 255, 0, 1, 2};
	assert_int_equal(a->spline.data_size, 8);
	assert_memory_equal(a->spline.data, data, 8);
	assert_int_equal(a->spline.endian, 0);
	assert_int_equal(f->num_reference_frames, 1);
	assert_true(f->reference_frames[0].up[2] == 1.0f);
	assert_int_equal(f->reference_frames[0].num_samples, 2);
	assert_true(f->reference_frames[0].samples[1][2] == 3.0f);
	assert_int_equal(f->num_bindings, 1);
	assert_string_equal(f->bindings[0].original_skeleton_name, "NPC Root [Root]");
	assert_int_equal(f->bindings[0].animation, 0);
	hks_file_free(f);
}

/* Replace the first occurrence of `from` with `to` and read the result. */
static hks_result read_edited(const char *base, const char *from, const char *to, hks_error *e)
{
	const char *at = strstr(base, from);
	assert_non_null(at);
	size_t n = strlen(base) - strlen(from) + strlen(to);
	char *text = (char *)malloc(n + 1);
	size_t head = (size_t)(at - base);
	memcpy(text, base, head);
	memcpy(text + head, to, strlen(to));
	strcpy(text + head + strlen(to), at + strlen(from));
	hks_file *f;
	hks_result r = read_text(text, n, &f, e);
	hks_file_free(f);
	free(text);
	return r;
}

static void test_malformed(void **state)
{
	(void)state;
	hks_error e;
	/* not well-formed */
	assert_int_equal(read_edited(tagfile_xml, "</object>", "</objekt>", &e), HKS_E_MALFORMED);
	assert_true(e.offset > 0);
	assert_int_equal(read_edited(packfile_xml, "</hkpackfile>", "", &e), HKS_E_MALFORMED);
	/* declared sizes that do not match */
	assert_int_equal(read_edited(tagfile_xml, "<array name=\"data\" size=\"8\">", "<array name=\"data\" size=\"9\">", &e),
	                 HKS_E_MALFORMED);
	assert_string_equal(e.member, "data");
	assert_int_equal(read_edited(tagfile_xml, "<array name=\"data\" size=\"8\">", "<array name=\"data\" size=\"7\">", &e),
	                 HKS_E_MALFORMED);
	assert_int_equal(read_edited(packfile_xml, "numelements=\"20\"", "numelements=\"4000000000\"", &e), HKS_E_MALFORMED);
	assert_int_equal(read_edited(packfile_xml, "\"bindings\" numelements=\"1\"", "\"bindings\" numelements=\"2\"", &e),
	                 HKS_E_MALFORMED);
	/* bad values */
	assert_int_equal(read_edited(tagfile_xml, "69 2 4 0", "69 2 4 256", &e), HKS_E_MALFORMED);
	assert_int_equal(read_edited(tagfile_xml, "x41080000", "x4108zz00", &e), HKS_E_MALFORMED);
	assert_int_equal(read_edited(tagfile_xml, ">201<", ">two hundred<", &e), HKS_E_MALFORMED);
	/* a reference to nothing */
	assert_int_equal(read_edited(tagfile_xml, "<ref name=\"extractedMotion\">#0004", "<ref name=\"extractedMotion\">#0404", &e),
	                 HKS_E_MALFORMED);
	/* mixed text and elements */
	assert_int_equal(read_edited(tagfile_xml, "<ref>#0005</ref>", "5 <ref>#0005</ref> 6", &e), HKS_E_MALFORMED);
	/* another root element */
	assert_int_equal(read_edited(tagfile_xml, "<hktagfile version=\"1\">", "<hkfile version=\"1\">", &e),
	                 HKS_E_MALFORMED); /* mismatched end tag is the first error */
	hks_file *f;
	assert_int_equal(read_text("<svg></svg>", 11, &f, &e), HKS_E_UNSUPPORTED);
	/* entities and DTDs are refused */
	static const char dtd[] = "<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY x \"xx\">]><hktagfile>&x;</hktagfile>";
	assert_int_equal(read_text(dtd, strlen(dtd), &f, &e), HKS_E_UNSUPPORTED);
	/* deep nesting is bounded */
	size_t depth = 200;
	char *deep = (char *)malloc(depth * 7 + 1);
	size_t n = 0;
	for (size_t i = 0; i < depth; i++)
		n += (size_t)sprintf(deep + n, "<a>");
	for (size_t i = 0; i < depth; i++)
		n += (size_t)sprintf(deep + n, "</a>");
	assert_int_equal(read_text(deep, n, &f, &e), HKS_E_LIMIT);
	free(deep);
}

static void test_truncation(void **state)
{
	(void)state;
	const char *docs[2] = {packfile_xml, tagfile_xml};
	for (int d = 0; d < 2; d++) {
		size_t n = strlen(docs[d]);
		/* every prefix that ends before the closing root tag is malformed */
		size_t last = (size_t)(strrchr(docs[d], '<') - docs[d]);
		for (size_t len = 0; len <= last; len++) {
			char *copy = (char *)malloc(len ? len : 1);
			memcpy(copy, docs[d], len);
			hks_file *f;
			hks_error e;
			hks_result r = read_text(copy, len, &f, &e);
			if (r == HKS_OK)
				fail_msg("document %d truncated to %zu of %zu bytes parsed", d, len, n);
			assert_null(f);
			free(copy);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hkpackfile_dialect),
	    cmocka_unit_test(test_hktagfile_dialect),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_truncation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
