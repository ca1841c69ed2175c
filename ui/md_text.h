/*
 * md_text.h - markdown as a terminal shows it: the reports the About tab
 * quotes (weights/README.md, weights/calibration.md) are markdown, which
 * read raw shows pipes, dashes and asterisks instead of a table and plain
 * words.
 */
#ifndef DIPPM_UI_MD_TEXT_H
#define DIPPM_UI_MD_TEXT_H

/* md as plain text lines ('\n'-separated, malloc'd): a table's cells in
 * aligned columns under a rule of dashes, without pipes or the |---| row;
 * ** and * emphasis and ` code marks dropped; each paragraph and list item
 * re-wrapped to width columns (a list item's lines indented under its
 * text); lines indented by 4 spaces or inside ``` fences kept as they are;
 * one empty line between blocks. */
char *md_plain(const char *md, int width);

#endif
