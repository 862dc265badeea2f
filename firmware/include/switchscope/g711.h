/*
 * G.711 mu-law: a 16-bit linear sample to its 8-bit code (ITU-T G.711).
 * The standard codes the top 14 bits: their magnitude, clipped to 8159 and
 * biased by 33, is coded as a segment (the position of its leading one less
 * five, 0-7) and the four bits after that one; the code is sent inverted,
 * its top bit set for positive samples.
 */
#ifndef SWITCHSCOPE_G711_H
#define SWITCHSCOPE_G711_H

#include <stdint.h>

#define G711_BIAS 33
#define G711_CLIP 8159

static inline uint8_t g711_mulaw(int16_t linear)
{
    int32_t value = linear >> 2; /* arithmetic: negative samples round down, as the standard's */
    uint8_t invert = value < 0 ? 0x7F : 0xFF;
    int32_t magnitude = value < 0 ? -value : value;
    if (magnitude > G711_CLIP)
        magnitude = G711_CLIP;
    magnitude += G711_BIAS;
    uint8_t segment = 0;
    while (segment < 8 && magnitude >= (64 << segment))
        segment++;
    if (segment == 8) /* the clipped most, 8192: the last code */
        return (uint8_t)(0x7F ^ invert);
    uint8_t step = (uint8_t)((magnitude >> (segment + 1)) & 0x0F);
    return (uint8_t)(((segment << 4) | step) ^ invert);
}

#endif
