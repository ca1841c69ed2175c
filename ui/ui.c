/* ui.c - PLACEHOLDER until the explorer lands: prints the report. */
#include "ui.h"

#include "report.h"

int ui_main(const char *model)
{
    return report_main(model);
}
