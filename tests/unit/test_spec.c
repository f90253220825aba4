/* Validation: every error has its exact code and message, and leaves nothing behind. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/lto.h"
#include "util.h"

static coop_gen *gen;
static void setup(void) { cr_assert_eq(coop_gen_create(&gen), COOP_SUCCESS); }
static void teardown(void) { coop_gen_destroy(&gen); }
TestSuite(spec, .init = setup, .fini = teardown);

#define GROUP(...) ((coop_gen_group){__VA_ARGS__})

static void expect_group(coop_gen_group g, coop_result rc, const char *message)
{
  cr_assert_eq(coop_gen_add_group(gen, &g), rc, "result %d", rc);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, message);
  free(log);
  size_t n = 1;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 0, "a failed group must add nothing");
}

#define E COOP_ERROR_SPEC_INVALID
#define KNOWN_TYPES                                                                                  \
  "(known: i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64; a user type is declared first: 'types' in a spec, " \
  "--user-type, coop_gen_add_type or coop_linker_add_type)"

Test(spec, unknown_family)
{
  expect_group(GROUP(.family = "block_foo", .type = "f32", .threads = "128"), E,
               "--family: unknown family 'block_foo' (known: block_load block_store block_reduce block_scan warp_reduce "
               "warp_scan warp_load warp_store warp_exchange warp_merge_sort block_exchange block_merge_sort block_discontinuity "
               "block_adjacent_difference block_shuffle block_radix_sort block_histogram block_run_length_decode "
               "block_radix_rank)\n");
}
Test(spec, unknown_type)
{
  expect_group(GROUP(.family = "block_load", .type = "f32,f128", .threads = "128"), E,
               "--type: unknown type 'f128' " KNOWN_TYPES "\n");
}
Test(spec, unknown_op)
{
  expect_group(GROUP(.family = "block_reduce", .type = "f32", .op = "sum,avg", .threads = "128"), E,
               "--op: unknown op 'avg' for block_reduce (known: sum min max prod and or xor, custom:<name>)\n");
}
Test(spec, unknown_algorithm)
{
  expect_group(GROUP(.family = "block_load", .type = "f32", .threads = "128", .algorithm = "raking"), E,
               "--algorithm: unknown algorithm 'raking' for block_load (known: direct striped vectorize transpose "
               "warp_transpose warp_transpose_ts direct_cs striped_cs vectorize_cs transpose_cs warp_transpose_cs "
               "warp_transpose_ts_cs)\n");
}
Test(spec, unknown_variant)
{
  expect_group(GROUP(.family = "block_scan", .type = "f32", .op = "sum", .threads = "128", .variant = "full"), E,
               "--variant: unknown variant 'full' for block_scan (known: exclusive inclusive exclusive_prefix "
               "inclusive_prefix)\n");
}
Test(spec, bitwise_op_on_floats)
{
  expect_group(GROUP(.family = "block_reduce", .type = "f32,bf16", .op = "and", .threads = "128"), E,
               "--op: op 'and' needs an integer type, and no requested type is one\n");
}
Test(spec, float_type_with_only_bitwise_ops)
{
  expect_group(GROUP(.family = "block_scan", .type = "i32,f64", .op = "xor,or", .threads = "128"), E,
               "--type: type 'f64' is not an integer type, and every requested op is bitwise\n");
}
Test(spec, bitwise_with_mixed_types_generates_valid_pairs_only)
{
  coop_gen_group g = {.family = "block_reduce", .type = "f32,i32", .op = "sum,and", .threads = "128",
                      .variant = "full"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS);
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 3, "f32 sum, i32 sum, i32 and; got %zu", n); /* never f32 and */
}
Test(spec, zero_threads)
{
  expect_group(GROUP(.family = "block_load", .type = "f32", .threads = "0"), E,
               "--threads: thread count '0' out of range (each size at least 1, X*Y*Z at most 1024, Z at most 64)\n");
}
Test(spec, too_many_threads)
{
  expect_group(GROUP(.family = "block_load", .type = "f32", .threads = "32x32x2"), E,
               "--threads: thread count '32x32x2' out of range (each size at least 1, X*Y*Z at most 1024, Z at most "
               "64)\n");
}
Test(spec, z_over_64)
{
  expect_group(GROUP(.family = "block_load", .type = "f32", .threads = "1x1x65"), E,
               "--threads: thread count '1x1x65' out of range (each size at least 1, X*Y*Z at most 1024, Z at most "
               "64)\n");
}
Test(spec, malformed_threads)
{
  expect_group(GROUP(.family = "block_load", .type = "f32", .threads = "32x"), E,
               "--threads: invalid thread count '32x' (expected X, XxY or XxYxZ)\n");
}
Test(spec, items_out_of_range)
{
  expect_group(GROUP(.family = "block_load", .type = "f32", .threads = "32", .items = "4,33"), E,
               "--items: items per thread '33' out of range (1 to 32)\n");
}
Test(spec, items_zero)
{
  expect_group(GROUP(.family = "block_load", .type = "f32", .threads = "32", .items = "0"), E,
               "--items: items per thread '0' out of range (1 to 32)\n");
}
Test(spec, items_not_a_number)
{
  expect_group(GROUP(.family = "block_load", .type = "f32", .threads = "32", .items = "four"), E,
               "--items: invalid items per thread 'four' (expected a number from 1 to 32)\n");
}
Test(spec, warp_transpose_needs_multiple_of_32)
{
  expect_group(GROUP(.family = "block_store", .type = "f32", .threads = "65", .algorithm = "warp_transpose"), E,
               "--algorithm: algorithm 'warp_transpose' needs a thread count that is a multiple of 32, and no "
               "requested one is\n");
}
Test(spec, odd_threads_with_only_warp_algorithms)
{
  expect_group(GROUP(.family = "block_load", .type = "f32", .threads = "64,7",
                     .algorithm = "warp_transpose,warp_transpose_ts"),
               E, "--threads: thread count '7' is not a multiple of 32, which every requested algorithm needs\n");
}
Test(spec, duplicate_value)
{
  expect_group(GROUP(.family = "block_load", .type = "f32,i8,f32", .threads = "32"), E,
               "--type: duplicate type value 'f32'\n");
}
Test(spec, empty_list_entry)
{
  expect_group(GROUP(.family = "block_load", .type = "f32,,i8", .threads = "32"), E,
               "--type: empty value in list 'f32,,i8'\n");
}
Test(spec, missing_type)
{
  expect_group(GROUP(.family = "block_reduce", .op = "sum", .threads = "32"), E,
               "flags: missing --type (required for block_reduce)\n");
}
Test(spec, missing_op)
{
  expect_group(GROUP(.family = "block_scan", .type = "i32", .threads = "32"), E,
               "flags: missing --op (required for block_scan)\n");
}
Test(spec, op_on_load)
{
  expect_group(GROUP(.family = "block_load", .type = "i32", .op = "sum", .threads = "32"), E,
               "--op: block_load takes no op\n");
}
Test(spec, duplicate_symbol_across_groups)
{
  coop_gen_group g = {.family = "block_load", .type = "i32", .threads = "32", .variant = "plain"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_group(gen, &g), E);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "flags: symbol coop_block_load_i32_t32_i1_direct is requested twice (also at flags)\n");
  free(log);
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 1);
}
Test(spec, partial_reduce_has_one_item)
{
  coop_gen_group g = {.family = "block_reduce", .type = "f32", .op = "sum", .threads = "256,32x4x2", .items = "4,8"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS);
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 6, "4 full (2 shapes x 2 items) + 2 partial (one per shape); got %zu", n);
}
Test(spec, unsupported_arch)
{
  cr_assert_eq(coop_gen_set_archs(gen, "sm_90,sm_91"), E);
  char *log = coopt_gen_log(gen);
  cr_assert(strncmp(log, "--arch: unsupported arch 'sm_91' (this NVRTC supports: sm_75 ", 61) == 0, "%s", log);
  cr_assert(strstr(log, " sm_90 ") != NULL, "%s", log);
  free(log);
}
Test(spec, arch_below_75)
{
  cr_assert_eq(coop_gen_set_archs(gen, "sm_70"), E);
  char *log = coopt_gen_log(gen);
  cr_assert(strncmp(log, "--arch: unsupported arch 'sm_70' (this NVRTC", 44) == 0, "%s", log);
  free(log);
}
Test(spec, arch_not_sm)
{
  cr_assert_eq(coop_gen_set_archs(gen, "compute_90"), E);
  char *log = coopt_gen_log(gen);
  cr_assert(strncmp(log, "--arch: unsupported arch 'compute_90' (", 39) == 0, "%s", log);
  free(log);
}
Test(spec, duplicate_arch)
{
  cr_assert_eq(coop_gen_set_archs(gen, "sm_90,sm_80,sm_90"), E);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "--arch: duplicate arch 'sm_90'\n");
  free(log);
}
Test(spec, bad_name)
{
  cr_assert_eq(coop_gen_set_name(gen, "Bad-Name"), E);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "--name: invalid name 'Bad-Name' (1 to 64 of a-z 0-9 _, starting with a letter)\n");
  free(log);
}
Test(spec, write_needs_name_and_groups)
{
  char *dir = coopt_tmpdir();
  cr_assert_eq(coop_gen_write(gen, dir), COOP_ERROR_STATE);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "the bundle has no name (--name or \"name\")\n");
  free(log);
  cr_assert_eq(coop_gen_set_name(gen, "x"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_write(gen, dir), COOP_ERROR_STATE);
  log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "nothing to generate: no group was requested\n");
  free(log);
  cr_assert_eq(coopt_count_entries(dir), 0);
  free(dir);
}
Test(spec, null_arguments)
{
  cr_assert_eq(coop_gen_create(NULL), COOP_ERROR_INVALID_VALUE);
  cr_assert_eq(coop_gen_add_group(NULL, &GROUP(.family = "block_load")), COOP_ERROR_INVALID_VALUE);
  cr_assert_eq(coop_gen_add_group(gen, NULL), COOP_ERROR_INVALID_VALUE);
  cr_assert_eq(coop_gen_add_spec_file(gen, NULL), COOP_ERROR_INVALID_VALUE);
  cr_assert_eq(coop_gen_write(gen, NULL), COOP_ERROR_INVALID_VALUE);
  coop_gen *none = NULL;
  cr_assert_eq(coop_gen_destroy(&none), COOP_SUCCESS);
}

/* ---- spec files ---- */

static void expect_spec(const char *text, coop_result rc, const char *message)
{
  cr_assert_eq(coop_gen_add_spec_string(gen, text, strlen(text), "spec.json"), rc);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, message);
  free(log);
  size_t n = 1;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 0);
}

Test(spec, file_unknown_type_has_line_and_column)
{
  expect_spec("{\n"
              "  \"name\": \"t\",\n"
              "  \"generate\": [\n"
              "    {\"family\": \"block_reduce\", \"type\": [\"f32\", \"f128\"], \"op\": \"sum\", \"threads\": 128}\n"
              "  ]\n"
              "}\n",
              E, "spec.json:4:48: unknown type 'f128' " KNOWN_TYPES "\n");
}
Test(spec, file_yaml_bitwise_on_float)
{
  expect_spec("name: t\n"
              "generate:\n"
              "  - family: block_scan\n"
              "    type: f16\n"
              "    op: [sum, xor]\n"
              "    threads: 64\n",
              E, "spec.json:5:15: op 'xor' needs an integer type, and no requested type is one\n");
}
Test(spec, file_threads_out_of_range)
{
  expect_spec("{\"name\": \"t\", \"generate\": [{\"family\": \"block_load\", \"type\": \"u8\",\n"
              "  \"threads\": [\"32x4x2\", 0]}]}",
              E,
              "spec.json:2:25: thread count '0' out of range (each size at least 1, X*Y*Z at most 1024, Z at most "
              "64)\n");
}
Test(spec, file_missing_field_names_group)
{
  expect_spec("{\"name\": \"t\", \"generate\": [\n  {\"family\": \"block_load\", \"threads\": 32}]}", E,
              "spec.json:2:3: missing 'type' (required for block_load)\n");
}
Test(spec, file_unknown_key)
{
  expect_spec("{\"name\": \"t\", \"generat\": []}", E,
              "spec.json:1:15: unknown key 'generat' (known: name arch units ir types generate)\n");
}
Test(spec, file_unknown_group_key)
{
  expect_spec("{\"generate\": [{\"family\": \"block_load\", \"types\": \"f32\", \"threads\": 32}]}", E,
              "spec.json:1:40: unknown key 'types' (known: family type op threads items algorithm variant warp values bins decoded)\n");
}
Test(spec, file_duplicate_key)
{
  expect_spec("{\"name\": \"t\", \"name\": \"u\"}", E, "spec.json:1:15: duplicate key 'name'\n");
}
Test(spec, file_wrong_node_kind)
{
  expect_spec("{\"generate\": {\"family\": \"block_load\"}}", E,
              "spec.json:1:14: 'generate' must be a list of groups, got a mapping\n");
}
Test(spec, file_bad_arch)
{
  expect_spec("{\"arch\": [\"sm_90\", \"sm_90\"]}", E, "spec.json:1:20: duplicate arch 'sm_90'\n");
}
Test(spec, file_duplicate_symbol)
{
  expect_spec("{\"generate\": [\n"
              " {\"family\": \"block_load\", \"type\": \"i32\", \"threads\": 32, \"variant\": \"plain\"},\n"
              " {\"family\": \"block_load\", \"type\": [\"i8\", \"i32\"], \"threads\": 32}]}",
              E, "spec.json:3:2: symbol coop_block_load_i32_t32_i1_direct is requested twice (also at spec.json:2:2)\n");
}
Test(spec, file_syntax_error)
{
  expect_spec("{\"name\": \"t\", \"generate\": [\n", COOP_ERROR_SPEC_SYNTAX,
              "spec.json:2:1: syntax error: did not find expected node content while parsing a flow node\n");
}
Test(spec, file_not_a_mapping)
{
  expect_spec("[1, 2]", E, "spec.json:1:1: the spec must be a mapping, got a list\n");
}
Test(spec, file_unreadable)
{
  cr_assert_eq(coop_gen_add_spec_file(gen, "/nonexistent/spec.json"), COOP_ERROR_IO);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "/nonexistent/spec.json: cannot read the spec file\n");
  free(log);
}
Test(spec, file_ok_sets_name_archs_and_groups)
{
  const char *text = "{\"name\": \"demo\", \"arch\": [\"sm_90\", \"sm_80\"], \"generate\": [\n"
                     " {\"family\": \"block_reduce\", \"type\": [\"f32\", \"f64\"], \"op\": [\"sum\", \"max\"],\n"
                     "  \"threads\": [256, \"32x4x2\"], \"items\": 4, \"algorithm\": \"warp_reductions\"}]}";
  cr_assert_eq(coop_gen_add_spec_string(gen, text, strlen(text), "spec.json"), COOP_SUCCESS);
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 16);
}

/* ---- the command line ---- */
Test(spec, cli_error_exit_code_message_and_nothing_written)
{
  char *dir = coopt_tmpdir();
  char *cmd = coopt_fmt("%s --family block_reduce --type f32,f128 --op sum --threads 256 --arch sm_90 --name x "
                        "-o %s/out 2>&1",
                        COOPGEN_PATH, dir);
  char *out = NULL;
  int rc = coopt_run(cmd, &out);
  cr_assert_eq(rc, 1);
  cr_assert_str_eq(out, "coopgen: --type: unknown type 'f128' " KNOWN_TYPES "\n"
                        "coopgen: failed: COOP_ERROR_SPEC_INVALID (the spec asks for something unknown, unsupported or "
                        "forbidden)\n");
  cr_assert_eq(coopt_count_entries(dir), 0, "nothing may be written");
  free(out);
  free(cmd);
  cmd = coopt_fmt("%s --family block_reduce --bogus 2>&1", COOPGEN_PATH);
  rc = coopt_run(cmd, &out);
  cr_assert_eq(rc, 2);
  cr_assert(strncmp(out, "coopgen: unknown option '--bogus'\nusage: coopgen", 48) == 0, "%s", out);
  free(out);
  free(cmd);
  free(dir);
}

Test(spec, warp_families)
{
  expect_group(GROUP(.family = "warp_reduce", .type = "f32", .op = "sum", .warp = "33"), E,
               "--warp: logical warp size '33' out of range (1 to 32 lanes)\n");
  expect_group(GROUP(.family = "warp_scan", .type = "f32", .op = "sum", .warp = "8", .threads = "32"), E,
               "--threads: warp_scan takes no --threads (a warp primitive takes the logical warp's lanes, with "
               "warp, and one item per lane)\n");
  expect_group(GROUP(.family = "warp_reduce", .type = "f32", .op = "sum", .warp = "8", .algorithm = "raking"), E,
               "--algorithm: warp_reduce takes no --algorithm (CUB chooses it: shuffles for a power-of-two warp, "
               "shared memory otherwise)\n");
  expect_group(GROUP(.family = "warp_reduce", .type = "f32", .op = "sum"), E,
               "flags: missing --warp (required for warp_reduce)\n");
  expect_group(GROUP(.family = "block_reduce", .type = "f32", .op = "sum", .threads = "32", .warp = "8"), E,
               "--warp: block_reduce takes no --warp\n");
  coop_gen_group ok = {.family = "warp_scan", .type = "i32", .op = "sum,max", .warp = "7,32", .variant = "inclusive"};
  cr_assert_eq(coop_gen_add_group(gen, &ok), COOP_SUCCESS);
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 4);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_reduce_max_partial_u8_w12"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_reduce_max_u8_w0"), E);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "coop_warp_reduce_max_u8_w0: logical warp size '0' out of range (1 to 32 lanes)\n");
  free(log);
}
Test(spec, file_ir)
{
  expect_spec("{\"name\": \"t\", \"ir\": \"fast\"}", E, "spec.json:1:21: 'ir' must be plain or optimized\n");
  cr_assert_eq(coop_gen_set_ir(gen, "quick"), E);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "--ir: 'quick' is not plain or optimized\n");
  free(log);
}
Test(spec, custom_operators)
{
  expect_group(GROUP(.family = "block_reduce", .type = "f32", .op = "custom:My-op", .threads = "128"), E,
               "--op: invalid custom operator 'custom:My-op' (custom:<name>, the name of an extern \"C\" __device__ "
               "function: 1 to 40 of a-z 0-9 _, not starting with a digit)\n");
  expect_group(GROUP(.family = "block_reduce", .type = "f32", .op = "custom:add_partial", .threads = "128"), E,
               "--op: custom operator 'custom:add_partial' ends like a variant of the symbol (_partial, _prefix); "
               "rename it\n");
  expect_group(GROUP(.family = "block_scan", .type = "f32,f64", .op = "custom:mat", .threads = "128"), E,
               "--op: custom operator 'custom:mat' is one C function, so it takes one type, got 2\n");
  expect_group(GROUP(.family = "block_reduce", .type = "f32", .op = "custom:mat", .threads = "128",
                     .algorithm = "raking_comm"), E,
               "--op: op 'custom:mat' with algorithm 'raking_comm': CUB's commutative-only reduction reorders "
               "operands, and a custom operator is not known to commute (use raking or warp_reductions)\n");
  /* with another algorithm beside it, raking_comm is simply not paired with the custom op */
  coop_gen_group ok = {.family = "block_reduce", .type = "f32", .op = "custom:mat,sum", .threads = "128",
                       .algorithm = "raking,raking_comm", .variant = "full"};
  cr_assert_eq(coop_gen_add_group(gen, &ok), COOP_SUCCESS);
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 3); /* custom+raking, sum+raking, sum+raking_comm */
  coop_gen_group other = {.family = "warp_scan", .type = "f64", .op = "custom:mat", .warp = "8"};
  cr_assert_eq(coop_gen_add_group(gen, &other), E);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "--op: custom operator 'custom:mat' is one C function; flags already uses it for f32\n");
  free(log);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_reduce_custom_mat_partial_f32_t128_i1_raking"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_exclusive_scan_custom_q_i32_w16"), COOP_SUCCESS);
}

Test(spec, user_types)
{
  /* declared in a spec, then named by its groups, by flags and by symbols */
  const char *spec = "name: m\n"
                     "types:\n"
                     "  - {name: mat2, size: 16, align: 8}\n"
                     "generate:\n"
                     "  - {family: block_scan, type: mat2, op: custom:matmul, threads: 64, variant: inclusive}\n";
  cr_assert_eq(coop_gen_add_spec_string(gen, spec, strlen(spec), "s.yaml"), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  coop_gen_group g = {.family = "warp_reduce", .type = "mat2", .op = "custom:matmul", .warp = "5", .variant = "full"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_load_mat2_t32x2x1_i3_warp_transpose"), COOP_SUCCESS);
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 3);
  char *src = NULL;
  cr_assert_eq(coop_gen_get_source(gen, &src), COOP_SUCCESS);
  cr_assert_not_null(strstr(src, "struct alignas(8) coop_user_mat2\n{\n  unsigned char b[16];\n};\n"), "%s", src);
  cr_assert_not_null(strstr(src, "extern \"C\" __device__ void matmul(const coop_user_mat2 *a, const coop_user_mat2 *b, "
                                 "coop_user_mat2 *out);"), "%s", src);
  cr_assert_not_null(strstr(src, "coop::warp_reduce<coop_user_mat2, 5>"), "%s", src);
  free(src);
  /* the same declaration again is one; another size for the name is refused where it is written */
  cr_assert_eq(coop_gen_add_type(gen, "mat2", 16, 8), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_type(gen, "mat2", 32, 8), E);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "coop_gen_add_type: type 'mat2' is already declared with size 16 and alignment 8\n");
  free(log);
}

Test(spec, user_type_errors)
{
  expect_spec("types: [{name: mat2, size: 16}]\n", E, "spec.json:1:9: a type needs name, size and align; 'align' is missing\n");
  expect_spec("types: [{name: mat2, size: 16, align: 8, pad: 1}]\n", E,
              "spec.json:1:42: unknown key 'pad' (known: name size align)\n");
  expect_spec("types: {name: mat2}\n", E, "spec.json:1:8: 'types' must be a list of {name, size, align}, got a mapping\n");
  expect_spec("types: [{name: mat2, size: -4, align: 4}]\n", E, "spec.json:1:28: 'size' must be a number of bytes, got '-4'\n");
  expect_spec("types: [{name: Mat, size: 16, align: 4}]\n", E,
              "spec.json:1:9: invalid type name 'Mat' (1 to 24 of a-z 0-9, starting with a letter: it is the type's code "
              "in symbols, which use _ as the separator)\n");
  expect_spec("types: [{name: u32, size: 4, align: 4}]\n", E, "spec.json:1:9: type name 'u32' is a built-in type's code\n");
  expect_spec("types: [{name: big, size: 2048, align: 4}]\n", E,
              "spec.json:1:9: type 'big': size 2048 out of range (1 to 1024 bytes)\n");
  expect_spec("types: [{name: odd, size: 12, align: 8}]\n", E,
              "spec.json:1:9: type 'odd': size 12 is not a multiple of its alignment 8 (a C type's size always is)\n");
  expect_spec("types: [{name: a, size: 4, align: 4}, {name: a, size: 8, align: 4}]\n", E,
              "spec.json:1:39: type 'a' is already declared with size 4 and alignment 4\n");
  expect_spec("types: [{name: mat2, size: 16, align: 4}]\n"
              "generate: [{family: block_reduce, type: mat2, op: [sum], threads: 32}]\n", E,
              "spec.json:2:52: op 'sum' with user type 'mat2': a user type is opaque bytes to cooplink, so its operators "
              "are custom:<name>\n");
  /* a failing spec declares nothing */
  coop_gen_group g = {.family = "block_load", .type = "mat2", .threads = "32"};
  cr_assert_eq(coop_gen_add_group(gen, &g), E);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_reduce_custom_q_mat2_w8"), E);
  char *log = coopt_gen_log(gen);
  cr_assert_not_null(strstr(log, "coop_warp_reduce_custom_q_mat2_w8: unknown type 'mat2'"), "%s", log);
  free(log);
}

Test(spec, warp_load_store_exchange)
{
  /* CUB's warp load, store and exchange: power-of-two logical warps, items per thread, an algorithm */
  coop_gen_group g = {.family = "warp_exchange", .type = "f32", .warp = "8", .items = "8,4", .algorithm = "smem,shuffle"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 3 * 2 + 2); /* smem: every variant, two item counts; shuffle: 8 items, no scatter */
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_load_guarded_u8_w16_i3_transpose"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_store_i64_w1_i2_vectorize"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_exchange_scatter_to_striped_f64_w32_i2_smem"), COOP_SUCCESS);
  char *src = NULL;
  cr_assert_eq(coop_gen_get_source(gen, &src), COOP_SUCCESS);
  cr_assert_not_null(strstr(src, "coop::warp_exchange<float, 8, 4, cub::WARP_EXCHANGE_SMEM>"), "%s", src);
  cr_assert_not_null(strstr(src, "coop::warp_load<cuda::std::uint8_t, 16, 3, cub::WARP_LOAD_TRANSPOSE>"), "%s", src);
  cr_assert_not_null(strstr(src, "extern \"C\" __device__ void coop_warp_exchange_scatter_to_striped_f64_w32_i2_smem("
                                 "const double *items_in, double *items_out, const int *ranks, void *temp)"), "%s", src);
  free(src);
}

Test(spec, load_cache_modifier)
{
  /* the loads' _cs algorithms: CUB's algorithm with its LOAD_CS modifier, by symbol and by group; stores have none */
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_load_guarded_f32_w16_i4_striped_cs"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_load_u8_t128_i3_warp_transpose_ts_cs"), COOP_SUCCESS);
  coop_gen_group g = {.family = "block_load", .type = "f64", .threads = "64", .items = "2",
                      .algorithm = "vectorize,vectorize_cs"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 2 + 2 * 2); /* two symbols; two algorithms of two variants */
  char *src = NULL;
  cr_assert_eq(coop_gen_get_source(gen, &src), COOP_SUCCESS);
  cr_assert_not_null(strstr(src, "coop::warp_load<float, 16, 4, cub::WARP_LOAD_STRIPED, cub::LOAD_CS>"), "%s", src);
  cr_assert_not_null(strstr(src, "coop::block_load<cuda::std::uint8_t, 128, 1, 1, 3, "
                                 "cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED, cub::LOAD_CS>"), "%s", src);
  cr_assert_not_null(strstr(src, "coop::block_load<double, 64, 1, 1, 2, cub::BLOCK_LOAD_VECTORIZE>;"), "%s", src);
  cr_assert_not_null(strstr(src, "extern \"C\" __device__ void coop_block_load_guarded_f64_t64_i2_vectorize_cs("),
                     "%s", src);
  free(src);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_store_f32_t128_i4_vectorize_cs"), COOP_ERROR_SPEC_INVALID);
}

Test(spec, warp_load_store_exchange_refusals)
{
  expect_group(GROUP(.family = "warp_load", .type = "f32", .warp = "8,12", .items = "2"), E,
               "--warp: a logical warp of 12 lanes: CUB's warp_load needs a power of two (1, 2, 4, 8, 16 or 32)\n");
  expect_group(GROUP(.family = "warp_exchange", .type = "f32", .warp = "8", .items = "4", .algorithm = "shuffle"), E,
               "--algorithm: algorithm 'shuffle' of warp_exchange needs as many items per thread as lanes (CUB's), and "
               "no requested combination has them\n");
  expect_group(GROUP(.family = "warp_exchange", .type = "f32", .warp = "4", .items = "4", .algorithm = "shuffle",
                     .variant = "scatter_to_striped"), E,
               "--algorithm: algorithm 'shuffle' of warp_exchange has no variant 'scatter_to_striped' (CUB's)\n");
  cr_assert_eq(coop_gen_add_type(gen, "pt", 8, 4), COOP_SUCCESS);
  expect_group(GROUP(.family = "warp_exchange", .type = "pt", .warp = "4", .items = "4", .algorithm = "shuffle"), E,
               "--algorithm: algorithm 'shuffle' of warp_exchange with user type 'pt': CUB's moves values with "
               "__shfl_xor_sync, which takes built-in types only (use smem)\n");
  expect_group(GROUP(.family = "warp_store", .type = "f32", .warp = "8", .threads = "64"), E,
               "--threads: warp_store takes no --threads (a warp primitive takes the logical warp's lanes, with warp)\n");
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_load_f32_w12_i2_direct"), E);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "coop_warp_load_f32_w12_i2_direct: a logical warp of 12 lanes: CUB's warp_load needs a power "
                        "of two (1, 2, 4, 8, 16 or 32)\n");
  free(log);
}

Test(spec, warp_merge_sort)
{
  /* keys by default; pairs with a value type; comparators; symbols parsed back */
  coop_gen_group g = {.family = "warp_merge_sort", .type = "i32", .op = "less,custom:odd_first", .warp = "8", .items = "3"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  coop_gen_group p = {.family = "warp_merge_sort", .type = "f32", .op = "greater", .warp = "32", .items = "2",
                      .values = "u64,f16"};
  cr_assert_eq(coop_gen_add_group(gen, &p), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 2 * 2 + 2 * 2); /* keys and keys_guarded x 2 comparators; pairs, pairs_guarded x 2 values */
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_merge_sort_pairs_guarded_less_u8_f64_w4_i5"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_warp_merge_sort_keys_custom_odd_first_i32_w16_i1"), COOP_SUCCESS);
  char *src = NULL;
  cr_assert_eq(coop_gen_get_source(gen, &src), COOP_SUCCESS);
  cr_assert_not_null(strstr(src, "extern \"C\" __device__ int odd_first(const cuda::std::int32_t *a, const "
                                 "cuda::std::int32_t *b);"), "%s", src);
  cr_assert_not_null(strstr(src, "coop::warp_merge_sort<float, 32, 2, __half>"), "%s", src);
  cr_assert_not_null(strstr(src, "void coop_warp_merge_sort_pairs_guarded_less_u8_f64_w4_i5(cuda::std::uint8_t *keys, "
                                 "double *values, int valid, const cuda::std::uint8_t *oob_default, void *temp)"), "%s", src);
  free(src);
}

Test(spec, warp_merge_sort_refusals)
{
  expect_group(GROUP(.family = "warp_merge_sort", .type = "f32", .op = "sum", .warp = "8"), E,
               "--op: unknown comparator 'sum' for warp_merge_sort (known: less greater, custom:<name>)\n");
  expect_group(GROUP(.family = "warp_merge_sort", .type = "f32", .op = "less", .warp = "12"), E,
               "--warp: a logical warp of 12 lanes: CUB's warp_merge_sort needs a power of two (1, 2, 4, 8, 16 or 32)\n");
  expect_group(GROUP(.family = "warp_merge_sort", .type = "f32", .op = "less", .warp = "8", .variant = "pairs"), E,
               "--variant: variant 'pairs' of warp_merge_sort sorts key-value pairs: give the value type with --values\n");
  expect_group(GROUP(.family = "block_reduce", .type = "f32", .op = "less", .threads = "64"), E,
               "--op: unknown op 'less' for block_reduce (known: sum min max prod and or xor, custom:<name>)\n");
  expect_group(GROUP(.family = "warp_load", .type = "f32", .warp = "8", .values = "u32"), E,
               "--values: warp_load takes no --values (a value type is for a sort of key-value pairs)\n");
}

Test(spec, block_exchange_merge_sort)
{
  /* block exchange: every variant by default (warp-striped only for whole warps or one), time slicing as an
   * algorithm; block merge sort: keys, pairs; symbols parsed back */
  coop_gen_group g = {.family = "block_exchange", .type = "f32", .threads = "64,65", .items = "3"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 8 + 6, "%zu", n); /* 64 threads: 8 variants; 65: no warp-striped exchange */
  coop_gen_group ts = {.family = "block_exchange", .type = "u8", .threads = "96", .items = "2", .algorithm = "smem_ts"};
  cr_assert_eq(coop_gen_add_group(gen, &ts), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 14 + 6, "%zu", n); /* time-sliced: no guarded or flagged scatter */
  coop_gen_group s = {.family = "block_merge_sort", .type = "i16", .op = "greater", .threads = "32x2", .items = "5",
                      .values = "f64"};
  cr_assert_eq(coop_gen_add_group(gen, &s), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 20 + 2, "%zu", n); /* a value type: pairs and pairs_guarded */
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_exchange_scatter_to_striped_flagged_bf16_t7x3x1_i4_smem"), COOP_SUCCESS,
               "%s", coopt_gen_log(gen));
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_merge_sort_keys_guarded_custom_by_len_u32_t128_i1"), COOP_SUCCESS,
               "%s", coopt_gen_log(gen));
  char *src = NULL;
  cr_assert_eq(coop_gen_get_source(gen, &src), COOP_SUCCESS);
  cr_assert_not_null(strstr(src, "coop::block_exchange<cuda::std::uint8_t, 96, 1, 1, 2, true>"), "%s", src);
  cr_assert_not_null(strstr(src, "coop::block_merge_sort<cuda::std::int16_t, 32, 2, 1, 5, double>"), "%s", src);
  cr_assert_not_null(strstr(src, "coop::block_merge_sort<cuda::std::uint32_t, 128, 1, 1, 1, void>"), "%s", src);
  cr_assert_not_null(strstr(src, "void coop_block_exchange_scatter_to_striped_flagged_bf16_t7x3x1_i4_smem(const __nv_bfloat16 "
                                 "*items_in, __nv_bfloat16 *items_out, const int *ranks, const int *is_valid, void *temp)"),
                     "%s", src);
  free(src);
}

Test(spec, block_exchange_merge_sort_refusals)
{
  expect_group(GROUP(.family = "block_exchange", .type = "f32", .threads = "128", .algorithm = "smem_ts",
                     .variant = "scatter_to_striped_guarded"), E,
               "--algorithm: algorithm 'smem_ts' of block_exchange has no variant 'scatter_to_striped_guarded' (CUB's "
               "guarded and flagged scatters ignore time slicing and would write past its shared memory)\n");
  expect_group(GROUP(.family = "block_exchange", .type = "f32", .threads = "65,100", .variant = "blocked_to_warp_striped"), E,
               "--variant: variant 'blocked_to_warp_striped' of block_exchange needs a block of at most 32 threads or a "
               "multiple of 32, and no requested thread count is one (CUB's warp-striped exchange places a partial last "
               "warp's items as if it had 32 lanes, past its shared memory)\n");
  expect_group(GROUP(.family = "block_exchange", .type = "f32", .threads = "64", .op = "sum"), E,
               "--op: block_exchange takes no op\n");
  expect_group(GROUP(.family = "block_merge_sort", .type = "f32", .op = "less", .threads = "64,96"), E,
               "--threads: a block of 96 threads: CUB's block_merge_sort needs a power-of-two thread count\n");
  expect_group(GROUP(.family = "block_merge_sort", .type = "f32", .op = "less", .threads = "64", .algorithm = "smem"), E,
               "--algorithm: block_merge_sort takes no --algorithm (CUB's has a single algorithm)\n");
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_merge_sort_keys_less_f32_t48_i2"), E);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "coop_block_merge_sort_keys_less_f32_t48_i2: a block of 48 threads: CUB's block_merge_sort needs a "
                        "power-of-two thread count\n");
  free(log);
}

Test(spec, discontinuity_adjacent_difference_shuffle)
{
  /* flag ops (CUB's inequality, equality, the orderings), the difference op, no op for the shuffle; every
   * variant by default; symbols parsed back */
  coop_gen_group d = {.family = "block_discontinuity", .type = "u16", .op = "ne,eq,greater", .threads = "65", .items = "2"};
  cr_assert_eq(coop_gen_add_group(gen, &d), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  coop_gen_group a = {.family = "block_adjacent_difference", .type = "f64", .op = "sub", .threads = "8x8", .items = "3"};
  cr_assert_eq(coop_gen_add_group(gen, &a), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  coop_gen_group s = {.family = "block_shuffle", .type = "i8", .threads = "7", .items = "4"};
  cr_assert_eq(coop_gen_add_group(gen, &s), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 8 * 3 + 7 + 6, "%zu", n); /* offset and rotate take one item: _i1 */
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_discontinuity_heads_tails_pred_custom_jump_f32_t128_i4"), COOP_SUCCESS,
               "%s", coopt_gen_log(gen));
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_adjacent_difference_right_partial_custom_delta_u32_t32x2x2_i1"),
               COOP_SUCCESS, "%s", coopt_gen_log(gen));
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_shuffle_rotate_f16_t1024_i1"), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  char *src = NULL;
  cr_assert_eq(coop_gen_get_source(gen, &src), COOP_SUCCESS);
  cr_assert_not_null(strstr(src, "extern \"C\" __device__ int jump(const float *a, const float *b);"), "%s", src);
  cr_assert_not_null(strstr(src, "extern \"C\" __device__ void delta(const cuda::std::uint32_t *a, const cuda::std::uint32_t "
                                 "*b, cuda::std::uint32_t *out);"), "%s", src);
  cr_assert_not_null(strstr(src, "void coop_block_discontinuity_heads_tails_pred_custom_jump_f32_t128_i4(int *head_flags, "
                                 "int *tail_flags, const float *items, const float *tile_predecessor, void *temp)"), "%s", src);
  cr_assert_not_null(strstr(src, "void coop_block_shuffle_offset_i8_t7_i1(const cuda::std::int8_t *item_in, "
                                 "cuda::std::int8_t *item_out, int distance, void *temp)"), "%s", src);
  cr_assert_not_null(strstr(src, "coop::block_shuffle<cuda::std::int8_t, 7, 1, 1, 4>"), "%s", src);
  free(src);
}

Test(spec, discontinuity_adjacent_difference_shuffle_refusals)
{
  expect_group(GROUP(.family = "block_discontinuity", .type = "f32", .op = "sum", .threads = "64"), E,
               "--op: unknown flag op 'sum' for block_discontinuity (known: less greater ne eq, custom:<name>)\n");
  expect_group(GROUP(.family = "block_merge_sort", .type = "f32", .op = "ne", .threads = "64"), E,
               "--op: unknown comparator 'ne' for block_merge_sort (known: less greater, custom:<name>)\n");
  expect_group(GROUP(.family = "block_adjacent_difference", .type = "f32", .op = "max", .threads = "64"), E,
               "--op: unknown difference op 'max' for block_adjacent_difference (known: sub, custom:<name>)\n");
  expect_group(GROUP(.family = "block_reduce", .type = "f32", .op = "sub", .threads = "64"), E,
               "--op: unknown op 'sub' for block_reduce (known: sum min max prod and or xor, custom:<name>)\n");
  expect_group(GROUP(.family = "block_shuffle", .type = "f32", .op = "sum", .threads = "64"), E,
               "--op: block_shuffle takes no op\n");
  expect_group(GROUP(.family = "block_discontinuity", .type = "f32", .threads = "64"), E,
               "flags: missing --op (required for block_discontinuity)\n");
}

Test(spec, radix_sort)
{
  /* keys by default (asc, desc, blocked, striped), radix bits as the algorithm (_r<bits>, default 4), pairs with
   * a value type (a user type too); a user type as keys refused, saying why */
  cr_assert_eq(coop_gen_add_type(gen, "rgb", 3, 1), COOP_SUCCESS);
  expect_group(GROUP(.family = "block_radix_sort", .type = "rgb", .threads = "64"), E,
               "--type: block_radix_sort with user type 'rgb': CUB's radix sort takes a user type as keys only with a "
               "decomposer into its arithmetic members, which cooplink's user types (opaque bytes) do not declare (sort "
               "them with block_merge_sort and a comparator)\n");
  expect_group(GROUP(.family = "block_radix_sort", .type = "u32", .threads = "64", .algorithm = "r9"), E,
               "--algorithm: unknown algorithm 'r9' for block_radix_sort (known: r1 r2 r3 r4 r5 r6 r7 r8)\n");
  coop_gen_group k = {.family = "block_radix_sort", .type = "i16,f32", .threads = "7x3", .items = "2"};
  cr_assert_eq(coop_gen_add_group(gen, &k), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  coop_gen_group p = {.family = "block_radix_sort", .type = "u64", .threads = "256", .items = "4", .values = "rgb",
                      .algorithm = "r6", .variant = "pairs_desc_striped"};
  cr_assert_eq(coop_gen_add_group(gen, &p), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 2 * 4 + 1, "%zu", n);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_radix_sort_pairs_asc_striped_bf16_u32_t32x2x2_i9_r8"), COOP_SUCCESS,
               "%s", coopt_gen_log(gen));
  char *src = NULL;
  cr_assert_eq(coop_gen_get_source(gen, &src), COOP_SUCCESS);
  cr_assert_not_null(strstr(src, "coop::block_radix_sort<cuda::std::uint64_t, 256, 1, 1, 4, 6, coop_user_rgb>"), "%s", src);
  cr_assert_not_null(strstr(src, "coop::block_radix_sort<cuda::std::int16_t, 7, 3, 1, 2, 4, void>"), "%s", src);
  cr_assert_not_null(strstr(src, "void coop_block_radix_sort_pairs_asc_striped_bf16_u32_t32x2x2_i9_r8(__nv_bfloat16 *keys, "
                                 "cuda::std::uint32_t *values, int begin_bit, int end_bit, void *temp)"), "%s", src);
  free(src);
}

Test(spec, histogram_run_length_decode)
{
  /* an extra number of the instance: a histogram's bins (_b<bins>), a decode's items a thread (_d<items>) */
  expect_group(GROUP(.family = "block_histogram", .type = "f32", .threads = "64", .bins = "16"), E,
               "--type: block_histogram takes integer items (each one a bin's number): 'f32' is not an integer type\n");
  expect_group(GROUP(.family = "block_histogram", .type = "u8", .threads = "64"), E,
               "flags: missing --bins (required for block_histogram)\n");
  expect_group(GROUP(.family = "block_histogram", .type = "u8", .threads = "64", .bins = "5000"), E,
               "--bins: bins '5000' out of range (1 to 4096)\n");
  expect_group(GROUP(.family = "block_scan", .type = "u8", .op = "sum", .threads = "64", .bins = "16"), E,
               "--bins: block_scan takes no --bins\n");
  expect_group(GROUP(.family = "block_run_length_decode", .type = "u8", .threads = "64", .items = "2", .decoded = "4",
                     .bins = "3"), E, "--bins: block_run_length_decode takes no --bins\n");
  coop_gen_group h = {.family = "block_histogram", .type = "u8,u16", .threads = "65", .items = "4", .bins = "256,7",
                      .algorithm = "sort,atomic"};
  cr_assert_eq(coop_gen_add_group(gen, &h), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  coop_gen_group r = {.family = "block_run_length_decode", .type = "f64", .threads = "4x4", .items = "3", .decoded = "5"};
  cr_assert_eq(coop_gen_add_group(gen, &r), COOP_SUCCESS, "%s", coopt_gen_log(gen));
  size_t n = 0;
  coop_gen_get_symbol_count(gen, &n);
  cr_assert_eq(n, 2 * 2 * 2 * 2 + 2, "%zu", n);
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_histogram_composite_i32_t32x2x1_i1_atomic_b4096"), COOP_SUCCESS, "%s",
               coopt_gen_log(gen));
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_run_length_decode_offsets_u8_t96_i1_d32"), COOP_SUCCESS, "%s",
               coopt_gen_log(gen));
  cr_assert_eq(coop_gen_add_symbol(gen, "coop_block_radix_rank_desc_bf16_t16x2x1_i7_r6"), COOP_SUCCESS, "%s",
               coopt_gen_log(gen));
  char *src = NULL;
  cr_assert_eq(coop_gen_get_source(gen, &src), COOP_SUCCESS);
  cr_assert_not_null(strstr(src, "coop::block_histogram<cuda::std::uint16_t, 65, 1, 1, 4, cub::BLOCK_HISTO_ATOMIC, 7>"),
                     "%s", src);
  cr_assert_not_null(strstr(src, "void coop_block_radix_rank_desc_bf16_t16x2x1_i7_r6(const __nv_bfloat16 *keys, int *ranks, "
                                 "int begin_bit, void *temp)"), "%s", src);
  cr_assert_not_null(strstr(src, "void coop_block_histogram_composite_i32_t32x2x1_i1_atomic_b4096(const cuda::std::int32_t "
                                 "*items, unsigned int *histogram, void *temp)"), "%s", src);
  cr_assert_not_null(strstr(src, "void coop_block_run_length_decode_offsets_u8_t96_i1_d32(const cuda::std::uint8_t "
                                 "*run_values, const unsigned int *run_lengths, cuda::std::uint8_t *decoded_items, unsigned "
                                 "int *item_offsets, int from_offset, unsigned int *total_decoded_size, void *temp)"),
                     "%s", src);
  free(src);
}

/* ---- found by fuzzing (tests/fuzz/regressions/spec_json) ---- */

Test(spec, file_empty_arch_list_is_named_at_its_key)
{
  /* the message took its location from an uninitialised pointer */
  expect_spec("{\"name\": \"t\",\n \"arch\": []}", E, "spec.json:2:2: empty list of architectures\n");
}

/* coop_gen_describe is the table the requests are checked against: each family's algorithms, in its order, are
 * the ones an unknown algorithm's message lists (what the Python layer validates by). */
Test(spec, describe_lists_the_algorithms_requests_take)
{
  char *text = NULL;
  cr_assert_eq(coop_gen_describe(&text), COOP_SUCCESS);
  json_t *doc = json_loads(text, 0, NULL);
  free(text);
  json_t *fams = json_object_get(doc, "families");
  cr_assert(json_is_object(fams) && json_object_size(fams) >= 19, "families");
  const char *name;
  json_t *f;
  int checked = 0;
  json_object_foreach(fams, name, f)
  {
    json_t *algos = json_object_get(f, "algorithms");
    cr_assert(json_is_array(algos), "%s", name);
    if (!json_array_size(algos)) {
      cr_assert_null(json_object_get(f, "default_algorithm"), "%s", name);
      continue;
    }
    char want[1024] = "";
    size_t i;
    json_t *a;
    int n = snprintf(want, sizeof want, "--algorithm: unknown algorithm 'bogus' for %s (known:", name);
    json_array_foreach(algos, i, a) n += snprintf(want + n, sizeof want - n, " %s", json_string_value(json_object_get(a, "name")));
    snprintf(want + n, sizeof want - n, ")\n");
    int warp = !strcmp(json_string_value(json_object_get(f, "scope")), "warp");
    const char *op = strstr(name, "reduce") || strstr(name, "scan") ? "sum" : NULL; /* (what else they need) */
    expect_group(warp ? GROUP(.family = name, .type = "i32", .warp = "32", .items = "1", .algorithm = "bogus")
                      : GROUP(.family = name, .type = "i32", .threads = "128", .op = op,
                             .bins = strcmp(name, "block_histogram") ? NULL : "16", .algorithm = "bogus"),
                 E, want);
    ++checked;
  }
  cr_assert_eq(checked, 11, "families with algorithms: %d", checked);
  json_t *load = json_array_get(json_object_get(json_object_get(fams, "block_load"), "algorithms"), 4);
  cr_assert_str_eq(json_string_value(json_object_get(load, "name")), "warp_transpose");
  cr_assert(json_is_true(json_object_get(load, "warp_multiple")));
  cr_assert_str_eq(json_string_value(json_object_get(json_object_get(fams, "block_load"), "default_algorithm")),
                   "direct");
  json_decref(doc);
  cr_assert_eq(coop_gen_describe(NULL), COOP_ERROR_INVALID_VALUE);
}
