/*
 * A configuration option whose value is a word arrives as a C token
 * (--config switch=software: -DSWITCHSCOPE_SWITCH=software). Code selects on
 * it by naming each value: with SWITCH_IS_software defined as 1,
 * SWITCHSCOPE_IS(SWITCH_IS_, SWITCHSCOPE_SWITCH) is 1 for that value only.
 */
#ifndef SWITCHSCOPE_CONFIG_VALUE_H
#define SWITCHSCOPE_CONFIG_VALUE_H

#define SWITCHSCOPE_PASTE(a, b) a##b
#define SWITCHSCOPE_IS(prefix, value) SWITCHSCOPE_PASTE(prefix, value)

#endif
