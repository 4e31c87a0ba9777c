/* A device's state as `ethtune show` prints it: objects, queues, NAPI, sysctls, driver. */
#ifndef ETHTUNE_SHOW_H
#define ETHTUNE_SHOW_H

/* Everything that governs TX completion on dev (in the current namespace), through out/ under
 * the current JSON object. 0 or -errno (-ENODEV: no such device). */
int show_device(const char *dev);

#endif
