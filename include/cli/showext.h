/* Hooks that add per-driver knowledge and backend details to `ethtune show`. */
#ifndef ETHTUNE_SHOWEXT_H
#define ETHTUNE_SHOWEXT_H

/* Print what ethtune knows about this driver under the current JSON object. */
void show_driver_extras(const char *dev, const char *driver);

#endif
