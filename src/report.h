/*
 * report.h - the plain-text report printed when dippm runs without a
 * terminal (`dippm [MODEL] | cat`): model summary and predictions.
 */
#ifndef DIPPM_REPORT_H
#define DIPPM_REPORT_H

/* Loads model (NULL: the bundled default) and prints the report on stdout.
 * Returns an exit code. */
int report_main(const char *model);

#endif
