/* Per-driver additions to `ethtune show`: knowledge base and optional backends. */
#include "showext.h"

void show_driver_extras(const char *dev, const char *driver)
{
}
