// Swift's view of Debian's libqrencode (libqrencode-dev, pkg-config name "libqrencode").
// Nothing is wrapped: QRcode_encodeData, QRcode_free and the QRcode struct import as they are.
// errno is read through Glibc on the Swift side. Debian builds the library with pthreads, which
// makes each encode call reentrant (its shared lookup tables are guarded by mutexes).
#ifndef CQRENCODE_SHIM_H
#define CQRENCODE_SHIM_H

#include <qrencode.h>

#endif
