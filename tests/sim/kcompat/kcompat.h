/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel API the pure protocol files use, for userspace builds of
 * them (the simulator: tests/sim/).  The pure files are wire.c, path.c
 * and cc.c of drivers/infiniband/sw/mroce/; they include only
 * <linux/{align,bitmap,bits,build_bug,errno,minmax,string,types}.h> and
 * the driver's compat.h (which includes <linux/version.h> and the
 * unaligned accessors).  Each of those names but errno.h is a one-line
 * header here that includes this file, and this file is all of that
 * surface; <linux/errno.h> is the system's (the kernel's uapi numbers).
 * scripts/lint checks that the pure files include nothing else.
 *
 * Semantics follow the kernel's: the bitmap operations are the
 * non-atomic ones (the kernel glue holds the connection's lock), min()
 * and max() evaluate their arguments once.
 */
#ifndef MROCE_KCOMPAT_H
#define MROCE_KCOMPAT_H

#include <linux/errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
/* Byte order is the accessors' business; the types only document it. */
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALIGN(x, a)	(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)

#ifndef __cplusplus
#define static_assert(expr, ...)	_Static_assert(expr, #expr)
#endif
#define fallthrough	__attribute__((__fallthrough__))

#define min(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b);	\
		     __a < __b ? __a : __b; })
#define max(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b);	\
		     __a > __b ? __a : __b; })
#define min_t(t, a, b)	min((t)(a), (t)(b))
#define max_t(t, a, b)	max((t)(a), (t)(b))
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define clamp_t(t, v, lo, hi)	clamp((t)(v), (t)(lo), (t)(hi))
#define swap(a, b) do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)

/* Bitmaps: arrays of unsigned long, bit i in word i / BITS_PER_LONG. */
#define BITS_PER_LONG		(8 * sizeof(unsigned long))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits)	unsigned long name[BITS_TO_LONGS(bits)]

static inline bool test_bit(unsigned long nr, const unsigned long *map)
{
	return map[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG) & 1;
}

static inline void set_bit(unsigned long nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void bitmap_zero(unsigned long *map, unsigned int bits)
{
	memset(map, 0, BITS_TO_LONGS(bits) * sizeof(unsigned long));
}

static inline bool bitmap_empty(const unsigned long *map, unsigned int bits)
{
	unsigned int i;

	for (i = 0; i < BITS_TO_LONGS(bits); i++)
		if (map[i])
			return false;
	return true;
}

static inline unsigned long find_first_zero_bit(const unsigned long *map,
						unsigned long bits)
{
	unsigned long i;

	for (i = 0; i < bits; i++)
		if (!test_bit(i, map))
			return i;
	return bits;
}

/* @bits is a multiple of BITS_PER_LONG here: the SACK window's 256. */
static inline void bitmap_shift_right(unsigned long *dst,
				      const unsigned long *src,
				      unsigned int shift, unsigned int bits)
{
	unsigned int words = BITS_TO_LONGS(bits), off = shift / BITS_PER_LONG;
	unsigned int rem = shift % BITS_PER_LONG, i;

	for (i = 0; i < words; i++) {
		unsigned long lo = i + off < words ? src[i + off] : 0;
		unsigned long hi = i + off + 1 < words ? src[i + off + 1] : 0;

		dst[i] = rem ? lo >> rem | hi << (BITS_PER_LONG - rem) : lo;
	}
}

static inline void bitmap_to_arr32(u32 *buf, const unsigned long *map,
				   unsigned int bits)
{
	unsigned int i;

	for (i = 0; i < (bits + 31) / 32; i++)
		buf[i] = (u32)(map[i * 32 / BITS_PER_LONG] >>
			       (i * 32 % BITS_PER_LONG));
}

/* Unaligned, explicit byte order. */
static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u16)(b[0] << 8 | b[1]);
}

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static inline u64 get_unaligned_be64(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u64)get_unaligned_be32(b) << 32 | get_unaligned_be32(b + 4);
}

static inline u32 get_unaligned_le32(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u32)b[3] << 24 | (u32)b[2] << 16 | (u32)b[1] << 8 | b[0];
}

static inline void put_unaligned_be16(u16 v, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = v >> 8;
	b[1] = v;
}

static inline void put_unaligned_be32(u32 v, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
}

static inline void put_unaligned_be64(u64 v, void *p)
{
	put_unaligned_be32(v >> 32, p);
	put_unaligned_be32((u32)v, (u8 *)p + 4);
}

static inline void put_unaligned_le32(u32 v, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = v;
	b[1] = v >> 8;
	b[2] = v >> 16;
	b[3] = v >> 24;
}

/* compat.h's version test: a userspace build has every kernel's API. */
#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + (c))
#define LINUX_VERSION_CODE	KERNEL_VERSION(255, 255, 255)

#endif /* MROCE_KCOMPAT_H */
