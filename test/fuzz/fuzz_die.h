/*
 * fuzz_die.h
 *		A fuzzer's failed check: "FUZZ_NAME: message" and abort(), so that
 *		libFuzzer keeps the input.  Define FUZZ_NAME before including.
 */
#ifndef RBMARSHAL_FUZZ_DIE_H
#define RBMARSHAL_FUZZ_DIE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void
die(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	fputs(FUZZ_NAME ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

#endif
