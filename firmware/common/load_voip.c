/*
 * --config load=voip (switchscope/load.h): the Cortex-M3 study's loaded
 * application. The board's load timer interrupts every
 * SWITCHSCOPE_LOAD_PERIOD_US; its handler puts one sample of a test tone into
 * the frame being filled and, every FRAME_SAMPLES (10 ms at 8 kHz), hands the
 * full frame to the next of SWITCHSCOPE_LOAD_TASKS encoding tasks, which
 * codes it with G.711 mu-law and waits for the next. The encoders run at the
 * kernel's highest task priority (ss_highest_priority()), above the measured
 * tasks, as a codec's deadline would put them.
 */
#include "switchscope/board.h"
#include "switchscope/kernel.h"
#include "switchscope/load.h"

#if SWITCHSCOPE_LOAD_VOIP
#include "switchscope/g711.h"

volatile uint32_t ss_load_interrupts;

#ifndef BOARD_LOAD_IRQ_NUMBER
#error "load=voip needs a board with a load timer (BOARD_LOAD_IRQ_NUMBER in its board_config.h)"
#endif

#define FRAME_SAMPLES 80
#define FRAMES 2 /* one filled by the handler while the other is encoded */
#define TONE_STEP 2048 /* of a 65536-step triangle period: 250 Hz at 8 kHz */

struct encoder {
    ss_signal *frame_ready;
    const int16_t *frame; /* the frame handed over */
    uint8_t coded[FRAME_SAMPLES];
    uint32_t frames;
};

static int16_t frames[FRAMES][FRAME_SAMPLES];
static struct encoder encoders[SWITCHSCOPE_LOAD_TASKS];
static uint32_t filled, frame_index, next_encoder;
static uint16_t phase;

static int16_t tone(void)
{
    phase = (uint16_t)(phase + TONE_STEP);
    int32_t rising = phase < 0x8000 ? phase : 0xFFFF - phase; /* 0 .. 32767 .. 0 */
    return (int16_t)(2 * rising - 32767);
}

void switchscope_load_irq(void)
{
    ss_load_interrupts++;
    board_load_timer_acknowledge();
    frames[frame_index][filled++] = tone();
    if (filled == FRAME_SAMPLES) {
        struct encoder *encoder = &encoders[next_encoder];
        next_encoder = (next_encoder + 1) % SWITCHSCOPE_LOAD_TASKS;
        encoder->frame = frames[frame_index];
        frame_index = (frame_index + 1) % FRAMES;
        filled = 0;
        ss_signal_give_from_isr(encoder->frame_ready);
    }
}

static void encoding_task(void *arg)
{
    struct encoder *encoder = arg;
    for (;;) {
        ss_signal_wait(encoder->frame_ready);
        for (uint32_t i = 0; i < FRAME_SAMPLES; i++)
            encoder->coded[i] = g711_mulaw(encoder->frame[i]);
        encoder->frames++;
    }
}

void load_setup(void)
{
    for (uint32_t i = 0; i < SWITCHSCOPE_LOAD_TASKS; i++) {
        encoders[i].frame_ready = ss_signal_create();
        ss_task_create("encode", encoding_task, &encoders[i], ss_highest_priority());
    }
}

void load_start(void) { board_load_timer_start(SWITCHSCOPE_LOAD_PERIOD_US); }

void load_describe(void (*emit)(const char *key, const char *value),
                   void (*emit_number)(const char *key, uint32_t value))
{
    emit(SS_TEXT("config.load"), SS_TEXT("voip"));
    emit_number(SS_TEXT("config.load_period_us"), SWITCHSCOPE_LOAD_PERIOD_US);
    emit_number(SS_TEXT("config.load_tasks"), SWITCHSCOPE_LOAD_TASKS);
    emit_number(SS_TEXT("config.load_frame_samples"), FRAME_SAMPLES);
}
#endif
