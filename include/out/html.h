/* HTML reports (--html FILE): one self-contained page drawn from a command's JSON document. */
#ifndef ETHTUNE_HTML_H
#define ETHTUNE_HTML_H

#include <stddef.h>
#include <jansson.h>

/* What a report can be drawn for: the commands whose JSON the page knows. */
enum html_kind {
	HTML_COMPARE,
	HTML_DIAGNOSE,
	HTML_SWEEP,
	HTML_TUNE,
	HTML_VALIDATE,
	HTML_MERGE, /* profile merge */
};

/* The TSQ sweep's fitted curve is drawn with fn (analysis' model_sw); unset: points only. */
void html_set_tsq_model(double (*fn)(double L, double rho, double R, double D));
/* Whether path can be written, asked before a long run starts: 0, or -errno with why. */
int html_check_path(const char *path, char *why, size_t len);
/* The page for doc to path, whole or not at all (write_file_atomic()); 0 or -errno. */
int html_report(const char *path, enum html_kind kind, const json_t *doc);
/* The page for the document json_record() kept (-ENODATA: none), which it then frees. */
int html_report_recorded(const char *path, enum html_kind kind);

#endif
