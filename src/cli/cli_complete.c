/* cli_complete.c - `dippm __complete WHAT [ARG...]`: the lists the shell
 * completion (completion/dippm.bash) offers, printed one per line from the
 * program's own tables so the two cannot drift apart. Hidden: not listed in
 * the usage text, not meant to be typed.
 *
 *   subcommands         the subcommand names
 *   options SUB         the options SUB accepts, one per line: "--NAME" or
 *                       "--NAME ARG" (and "-C [ARG]" for a short name)
 *   gpus                GPU names and their short aliases
 *   profiles GPU        the MIG profiles of GPU (a name or an alias)
 *   precisions          fp32, tf32, ...
 *   runtimes            pytorch, tensorrt
 *   quants              the quantisation schemes: none, w8a16, ...
 *   families            zoo template families
 *   params FAMILY       the family's hyperparameters, each as "NAME="
 *   values FAMILY NAME  the listed values of an enum (or listed int) parameter
 *   text-encoders       the text encoders a diffusion pipeline derives
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "core/diffusion.h"
#include "core/gpu.h"
#include "graph/zoo/zoo.h"

static int list_options(const char *sub)
{
#define X(name, usage, help)                   \
    if (!strcmp(sub, #name)) {                 \
        cli_opts_list(&cli_cmd_##name, stdout); \
        return 0;                              \
    }
    CLI_SUBCOMMANDS(X)
#undef X
    return 1;
}

static int list_gpus(void)
{
    for (int i = 0; i < gpu_count(); i++) {
        printf("%s\n", gpu_get(i)->name);
        const char *alias;
        for (int k = 0; (alias = gpu_aliases_of(i, k)); k++)
            printf("%s\n", alias);
    }
    return 0;
}

static int list_profiles(const char *gpu_name)
{
    int g = gpu_find(gpu_name);
    if (g < 0)
        return 1;
    const struct gpu_spec *gs = gpu_get(g);
    for (int i = 0; i < gs->n_mig; i++)
        printf("%s\n", gs->mig[i].name);
    if (gs->n_mig) /* GPU:full, the whole GPU, where there is a slice to leave */
        printf("full\n");
    return 0;
}

static int list_params(const char *family, const char *param)
{
    int fam = zoo_family_find(family);
    if (fam < 0)
        return 1;
    if (!param) {
        for (int i = 0; i < zoo_param_count(fam); i++)
            printf("%s=\n", zoo_param_get(fam, i)->name);
        return 0;
    }
    int i = zoo_param_find(fam, param);
    if (i < 0)
        return 1;
    const struct zoo_param *p = zoo_param_get(fam, i);
    for (int k = 0; k < p->n_choices; k++)
        printf("%s\n", p->choices[k]);
    return 0;
}

int cli_complete(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "subcommands")) {
#define X(name, usage, help) printf("%s\n", #name);
        CLI_SUBCOMMANDS(X)
#undef X
        return 0;
    }
    if (!strcmp(what, "options") && argc == 3)
        return list_options(argv[2]);
    if (!strcmp(what, "gpus"))
        return list_gpus();
    if (!strcmp(what, "profiles") && argc == 3)
        return list_profiles(argv[2]);
    if (!strcmp(what, "precisions")) {
#define X(id, name, bytes) printf("%s\n", name);
        PRECISION_LIST(X)
#undef X
        return 0;
    }
    if (!strcmp(what, "runtimes")) {
#define X(id, name) printf("%s\n", name);
        RUNTIME_LIST(X)
#undef X
        return 0;
    }
    if (!strcmp(what, "quants")) {
#define X(id, name, bits, scale_bytes, act, opts) printf("%s\n", name);
        QUANT_LIST(X)
#undef X
        return 0;
    }
    if (!strcmp(what, "families")) {
        for (int i = 0; i < zoo_family_count(); i++)
            printf("%s\n", zoo_family_name(i));
        return 0;
    }
    if (!strcmp(what, "params") && argc == 3)
        return list_params(argv[2], NULL);
    if (!strcmp(what, "values") && argc == 4)
        return list_params(argv[2], argv[3]);
    if (!strcmp(what, "text-encoders")) {
        for (int i = 0; diff_text_known(i); i++)
            printf("%s\n", diff_text_known(i));
        return 0;
    }
    return cli_usage_error("", "__complete: expected subcommands, options SUB, gpus, profiles "
                               "GPU, precisions, runtimes, quants, families, params FAMILY, values "
                               "FAMILY NAME or text-encoders");
}
