package dev.sharedarrays.dsl

import dev.sharedarrays.F32
import dev.sharedarrays.F64
import dev.sharedarrays.I16
import dev.sharedarrays.I32
import dev.sharedarrays.I64
import dev.sharedarrays.I8
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.U16
import dev.sharedarrays.U32
import dev.sharedarrays.U64
import dev.sharedarrays.U8

// min() and max() of all elements, exact and in the element's own type (an I64 minimum beyond
// 2^53 is exact, a U64 maximum is a ULong). Float results are NaN if an element is NaN, as in
// numpy. sum() and mean() are members of SharedNDArray and return Double.

/** The smallest element. */
@JvmName("minF64")
public fun SharedNDArray<F64>.min(): Double = minAsDouble()

/** The largest element. */
@JvmName("maxF64")
public fun SharedNDArray<F64>.max(): Double = maxAsDouble()

/** The smallest element. */
@JvmName("minF32")
public fun SharedNDArray<F32>.min(): Float = minAsDouble().toFloat()

/** The largest element. */
@JvmName("maxF32")
public fun SharedNDArray<F32>.max(): Float = maxAsDouble().toFloat()

/** The smallest element, exactly. */
@JvmName("minI64")
public fun SharedNDArray<I64>.min(): Long = minAsLong()

/** The largest element, exactly. */
@JvmName("maxI64")
public fun SharedNDArray<I64>.max(): Long = maxAsLong()

/** The smallest element, exactly. */
@JvmName("minI32")
public fun SharedNDArray<I32>.min(): Int = minAsLong().toInt()

/** The largest element, exactly. */
@JvmName("maxI32")
public fun SharedNDArray<I32>.max(): Int = maxAsLong().toInt()

/** The smallest element, exactly. */
@JvmName("minI16")
public fun SharedNDArray<I16>.min(): Short = minAsLong().toShort()

/** The largest element, exactly. */
@JvmName("maxI16")
public fun SharedNDArray<I16>.max(): Short = maxAsLong().toShort()

/** The smallest element, exactly. */
@JvmName("minI8")
public fun SharedNDArray<I8>.min(): Byte = minAsLong().toByte()

/** The largest element, exactly. */
@JvmName("maxI8")
public fun SharedNDArray<I8>.max(): Byte = maxAsLong().toByte()

/** The smallest element, exactly. */
@JvmName("minU64")
public fun SharedNDArray<U64>.min(): ULong = minAsLong().toULong()

/** The largest element, exactly. */
@JvmName("maxU64")
public fun SharedNDArray<U64>.max(): ULong = maxAsLong().toULong()

/** The smallest element, exactly. */
@JvmName("minU32")
public fun SharedNDArray<U32>.min(): UInt = minAsLong().toUInt()

/** The largest element, exactly. */
@JvmName("maxU32")
public fun SharedNDArray<U32>.max(): UInt = maxAsLong().toUInt()

/** The smallest element, exactly. */
@JvmName("minU16")
public fun SharedNDArray<U16>.min(): UShort = minAsLong().toUShort()

/** The largest element, exactly. */
@JvmName("maxU16")
public fun SharedNDArray<U16>.max(): UShort = maxAsLong().toUShort()

/** The smallest element, exactly. */
@JvmName("minU8")
public fun SharedNDArray<U8>.min(): UByte = minAsLong().toUByte()

/** The largest element, exactly. */
@JvmName("maxU8")
public fun SharedNDArray<U8>.max(): UByte = maxAsLong().toUByte()
