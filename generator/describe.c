/* coop_gen_describe: the generator's table (tables.c) as JSON, so that a binding validates a request's family
 * and algorithm by what coopgen takes instead of a list of its own. */
#include "gen.h"

#include <jansson.h>
#include <stdlib.h>

static json_t *family_json(const coop__family *f)
{
  json_t *algos = json_array();
  for (int a = 0; algos && a < f->n_algos; ++a)
    if (json_array_append_new(algos, json_pack("{s:s, s:b, s:b}", "name", f->algos[a].name, "warp_multiple",
                                               f->algos[a].warp_multiple, "power_of_two_lanes",
                                               f->algos[a].pow2_lanes || f->pow2_lanes)))
    {
      json_decref(algos);
      return NULL;
    }
  return algos ? json_pack("{s:s, s:o, s:s*}", "scope", f->scope == COOP__SCOPE_WARP ? "warp" : "block", "algorithms",
                           algos, "default_algorithm", f->n_algos ? f->algos[f->default_algo].name : NULL)
               : NULL;
}

coop_result coop_gen_describe(char **json)
{
  if (!json) return COOP_ERROR_INVALID_VALUE;
  *json = NULL;
  json_t *fams = json_object();
  for (int i = 0; fams && i < COOP__FAM_COUNT; ++i)
    if (json_object_set_new(fams, coop__families[i].name, family_json(&coop__families[i])))
    {
      json_decref(fams);
      fams = NULL;
    }
  json_t *doc = fams ? json_pack("{s:o}", "families", fams) : NULL;
  *json = doc ? json_dumps(doc, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
  json_decref(doc);
  return *json ? COOP_SUCCESS : COOP_ERROR_OUT_OF_MEMORY;
}
