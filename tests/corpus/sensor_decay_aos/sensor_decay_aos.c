// SPDX-License-Identifier: GPL-2.0-only
/*
 * A monitoring agent keeps 512 K sensors and, every tick, decays each
 * sensor's level toward its latest input: level = level * k + input.  A
 * sensor also carries its name, unit, thresholds and a short history used
 * by the dashboards.  With -DBAD the sensors are one array of 128-byte
 * structs, so the tick walks memory with a 128-byte stride and uses 8 bytes
 * of the two lines each sensor spans (the load of the level fetches the
 * line, the store after it and the load of the input find it cached);
 * otherwise the level and the input are arrays of their own and the tick
 * reads consecutive floats.
 *
 * Usage: sensor_decay_aos [TICKS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NSENSORS (512 * 1024)

#ifdef BAD
struct sensor {
	uint32_t id;
	float level;
	float input;
	float lo_alarm, hi_alarm;
	char name[20];
	char unit[8];
	float history[20];
};

_Static_assert(sizeof(struct sensor) == 128, "two lines per sensor");

static struct sensor *sensors;

static int sensors__init(void)
{
	sensors = calloc(NSENSORS, sizeof(*sensors));
	if (!sensors)
		return -1;
	for (int i = 0; i < NSENSORS; i++) {
		sensors[i].id = (uint32_t)i;
		sensors[i].level = (float)(i % 100);
		sensors[i].input = (float)(i % 37);
	}
	return 0;
}

static __attribute__((noinline)) float sensors__tick(float k)
{
	float total = 0;

	for (int i = 0; i < NSENSORS; i++) {
		sensors[i].level = sensors[i].level * k + sensors[i].input;
		total += sensors[i].level;
	}
	return total;
}
#else
static float *level, *input;

static int sensors__init(void)
{
	level = calloc(NSENSORS, sizeof(float));
	input = calloc(NSENSORS, sizeof(float));
	if (!level || !input)
		return -1;
	for (int i = 0; i < NSENSORS; i++) {
		level[i] = (float)(i % 100);
		input[i] = (float)(i % 37);
	}
	return 0;
}

static __attribute__((noinline)) float sensors__tick(float k)
{
	float total = 0;

	for (int i = 0; i < NSENSORS; i++) {
		level[i] = level[i] * k + input[i];
		total += level[i];
	}
	return total;
}
#endif

int main(int argc, char **argv)
{
	int ticks = argc > 1 ? atoi(argv[1]) : 800;
	double check = 0;

	if (sensors__init())
		return 1;
	for (int t = 0; t < ticks; t++)
		check += sensors__tick(0.5f);
	printf("checksum %.3f\n", check);
	return 0;
}
