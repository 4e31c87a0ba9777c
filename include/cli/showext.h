/* Hooks that add per-driver knowledge and backend details to `ethtune show`. */
#ifndef ETHTUNE_SHOWEXT_H
#define ETHTUNE_SHOWEXT_H

/* Print what ethtune knows about this driver under the current JSON object. */
void show_driver_extras(const char *dev, const char *driver);

/* Shared by commands that take a device: --netns handling and a clear missing-device line. */
int enter_netns_opt(void);
int report_missing_dev(const char *dev);

#endif
