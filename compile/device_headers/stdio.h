// <stdio.h> for device code under NVRTC, which declares the one stdio function a kernel can call, printf, itself.
#ifndef CUTUNE_DEVICE_STDIO_H
#define CUTUNE_DEVICE_STDIO_H
#endif
