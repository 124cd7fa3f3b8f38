// Swift's view of Debian's libmaxminddb (libmaxminddb-dev, pkg-config name "libmaxminddb"):
// MaxMind-format GeoIP databases (GeoIP2, GeoLite2), memory-mapped, safe to read from many
// threads once open.
#ifndef CMAXMINDDB_SHIM_H
#define CMAXMINDDB_SHIM_H

#include <maxminddb.h>

#endif
