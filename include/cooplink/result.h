/* cooplink: result codes shared by the generator and the runtime.
 *
 * Every cooplink function that can fail returns a coop_result. The numeric values are pinned: a code
 * keeps its value forever, new codes are only appended. coop_result_name() gives the enumerator's name
 * ("COOP_ERROR_SPEC_INVALID"), coop_result_string() a one-line description. Details of a failure (the
 * file, line and offending value; NVRTC and nvJitLink logs) are kept in the handle that failed and are
 * read with that handle's log functions: the library never prints.
 */
#ifndef COOPLINK_RESULT_H
#define COOPLINK_RESULT_H

#include <cooplink/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, description). Append only; never renumber. */
#define COOP_RESULT_MAP(X)                                                                                \
  X(COOP_SUCCESS, 0, "success")                                                                           \
  X(COOP_ERROR_INVALID_VALUE, 1, "an argument is NULL or out of range")                                   \
  X(COOP_ERROR_OUT_OF_MEMORY, 2, "out of host memory")                                                    \
  X(COOP_ERROR_IO, 3, "a file or folder could not be read or written")                                    \
  X(COOP_ERROR_SPEC_SYNTAX, 4, "the spec is not well-formed JSON or YAML")                                \
  X(COOP_ERROR_SPEC_INVALID, 5, "the spec asks for something unknown, unsupported or forbidden")          \
  X(COOP_ERROR_TOOLKIT, 6, "the CUDA toolkit (NVRTC, nvJitLink or the CCCL headers) is missing or unusable") \
  X(COOP_ERROR_NVRTC, 7, "NVRTC failed; its log is kept in the handle")                                   \
  X(COOP_ERROR_NVJITLINK, 8, "nvJitLink failed; its log is kept in the handle")                           \
  X(COOP_ERROR_DRIVER, 9, "the CUDA driver failed or is not available")                                   \
  X(COOP_ERROR_BUNDLE_CORRUPT, 10, "a bundle manifest is malformed or a payload is missing")              \
  X(COOP_ERROR_BUNDLE_FORMAT, 11, "a bundle has an unsupported manifest format version")                  \
  X(COOP_ERROR_BUNDLE_VERSION, 12, "a bundle was made by an incompatible cooplink version")               \
  X(COOP_ERROR_BUNDLE_CUDA_MAJOR, 13, "a bundle was made with another CUDA major version")                \
  X(COOP_ERROR_BUNDLE_PRODUCER_NEWER, 14, "a bundle was made by a newer NVRTC than this nvJitLink")        \
  X(COOP_ERROR_BUNDLE_HASH, 15, "a bundle payload does not match the hash in its manifest")               \
  X(COOP_ERROR_BUNDLE_ARCH, 16, "no bundle payload covers the target architecture")                       \
  X(COOP_ERROR_SYMBOL_MISSING, 17, "a symbol the code needs is defined nowhere: a coop_ symbol in no bundle, or a custom operator in no input") \
  X(COOP_ERROR_SYMBOL_DUPLICATE, 18, "a coop_ symbol is defined by two bundles of the catalog")           \
  X(COOP_ERROR_CACHE, 19, "the link cache could not be used")                                             \
  X(COOP_ERROR_INPUT, 20, "a link input is malformed or of an unknown kind")                              \
  X(COOP_ERROR_STATE, 21, "the handle is not in a state that allows this call")                          \
  X(COOP_ERROR_TYPE_MISMATCH, 22, "a user type is declared with another size or alignment than a bundle was built for")

typedef enum coop_result {
#define COOP__RESULT_ENUM(name, value, text) name = value,
  COOP_RESULT_MAP(COOP__RESULT_ENUM)
#undef COOP__RESULT_ENUM
} coop_result;

/* The enumerator's name, e.g. "COOP_ERROR_IO"; "COOP_RESULT_UNKNOWN" for a value not in the enum.
 * Never NULL; the string is static. */
COOP_API const char *coop_result_name(coop_result r);

/* A one-line description of the code; "unknown result code" for a value not in the enum. Never NULL;
 * the string is static. */
COOP_API const char *coop_result_string(coop_result r);

#ifdef __cplusplus
}
#endif
#endif
