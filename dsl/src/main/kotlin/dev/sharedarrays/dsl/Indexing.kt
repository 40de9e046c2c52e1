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

// Element access by full multi-index, typed by the element type: a[1, 2] is a Double for F64,
// an Int for I32, a UByte for U8. An index out of range, or too few or too many indices, is an
// IndexOutOfBoundsException naming the index, the axis and the bound. Stores wrap in the element
// width like the Java setters.

private fun IntArray.toIndex(): LongArray = LongArray(size) { this[it].toLong() }

/** Element of an F64 array at a full multi-index. */
@JvmName("getF64")
public operator fun SharedNDArray<F64>.get(vararg index: Int): Double = getDouble(index.toIndex())

/** Element of an F64 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getF64L")
public operator fun SharedNDArray<F64>.get(vararg index: Long): Double = getDouble(index)

/** Stores an element of an F64 array at a full multi-index. */
@JvmName("setF64")
public operator fun SharedNDArray<F64>.set(vararg index: Int, value: Double): Unit = setDouble(index.toIndex(), value)

/** Stores an element of an F64 array at a full multi-index (Long indices). */
@JvmName("setF64L")
public operator fun SharedNDArray<F64>.set(vararg index: Long, value: Double): Unit = setDouble(index, value)

/** Element of an F32 array at a full multi-index. */
@JvmName("getF32")
public operator fun SharedNDArray<F32>.get(vararg index: Int): Float = getDouble(index.toIndex()).toFloat()

/** Element of an F32 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getF32L")
public operator fun SharedNDArray<F32>.get(vararg index: Long): Float = getDouble(index).toFloat()

/** Stores an element of an F32 array at a full multi-index. */
@JvmName("setF32")
public operator fun SharedNDArray<F32>.set(vararg index: Int, value: Float): Unit = setDouble(index.toIndex(), value.toDouble())

/** Stores an element of an F32 array at a full multi-index (Long indices). */
@JvmName("setF32L")
public operator fun SharedNDArray<F32>.set(vararg index: Long, value: Float): Unit = setDouble(index, value.toDouble())

/** Element of an I64 array at a full multi-index. */
@JvmName("getI64")
public operator fun SharedNDArray<I64>.get(vararg index: Int): Long = getLong(index.toIndex())

/** Element of an I64 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getI64L")
public operator fun SharedNDArray<I64>.get(vararg index: Long): Long = getLong(index)

/** Stores an element of an I64 array at a full multi-index. */
@JvmName("setI64")
public operator fun SharedNDArray<I64>.set(vararg index: Int, value: Long): Unit = setLong(index.toIndex(), value)

/** Stores an element of an I64 array at a full multi-index (Long indices). */
@JvmName("setI64L")
public operator fun SharedNDArray<I64>.set(vararg index: Long, value: Long): Unit = setLong(index, value)

/** Element of an I32 array at a full multi-index. */
@JvmName("getI32")
public operator fun SharedNDArray<I32>.get(vararg index: Int): Int = getLong(index.toIndex()).toInt()

/** Element of an I32 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getI32L")
public operator fun SharedNDArray<I32>.get(vararg index: Long): Int = getLong(index).toInt()

/** Stores an element of an I32 array at a full multi-index. */
@JvmName("setI32")
public operator fun SharedNDArray<I32>.set(vararg index: Int, value: Int): Unit = setLong(index.toIndex(), value.toLong())

/** Stores an element of an I32 array at a full multi-index (Long indices). */
@JvmName("setI32L")
public operator fun SharedNDArray<I32>.set(vararg index: Long, value: Int): Unit = setLong(index, value.toLong())

/** Element of an I16 array at a full multi-index. */
@JvmName("getI16")
public operator fun SharedNDArray<I16>.get(vararg index: Int): Short = getLong(index.toIndex()).toShort()

/** Element of an I16 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getI16L")
public operator fun SharedNDArray<I16>.get(vararg index: Long): Short = getLong(index).toShort()

/** Stores an element of an I16 array at a full multi-index. */
@JvmName("setI16")
public operator fun SharedNDArray<I16>.set(vararg index: Int, value: Short): Unit = setLong(index.toIndex(), value.toLong())

/** Stores an element of an I16 array at a full multi-index (Long indices). */
@JvmName("setI16L")
public operator fun SharedNDArray<I16>.set(vararg index: Long, value: Short): Unit = setLong(index, value.toLong())

/** Element of an I8 array at a full multi-index. */
@JvmName("getI8")
public operator fun SharedNDArray<I8>.get(vararg index: Int): Byte = getLong(index.toIndex()).toByte()

/** Element of an I8 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getI8L")
public operator fun SharedNDArray<I8>.get(vararg index: Long): Byte = getLong(index).toByte()

/** Stores an element of an I8 array at a full multi-index. */
@JvmName("setI8")
public operator fun SharedNDArray<I8>.set(vararg index: Int, value: Byte): Unit = setLong(index.toIndex(), value.toLong())

/** Stores an element of an I8 array at a full multi-index (Long indices). */
@JvmName("setI8L")
public operator fun SharedNDArray<I8>.set(vararg index: Long, value: Byte): Unit = setLong(index, value.toLong())

/** Element of an U64 array at a full multi-index. */
@JvmName("getU64")
public operator fun SharedNDArray<U64>.get(vararg index: Int): ULong = getLong(index.toIndex()).toULong()

/** Element of an U64 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getU64L")
public operator fun SharedNDArray<U64>.get(vararg index: Long): ULong = getLong(index).toULong()

/** Stores an element of an U64 array at a full multi-index. */
@JvmName("setU64")
public operator fun SharedNDArray<U64>.set(vararg index: Int, value: ULong): Unit = setLong(index.toIndex(), value.toLong())

/** Stores an element of an U64 array at a full multi-index (Long indices). */
@JvmName("setU64L")
public operator fun SharedNDArray<U64>.set(vararg index: Long, value: ULong): Unit = setLong(index, value.toLong())

/** Element of an U32 array at a full multi-index. */
@JvmName("getU32")
public operator fun SharedNDArray<U32>.get(vararg index: Int): UInt = getLong(index.toIndex()).toUInt()

/** Element of an U32 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getU32L")
public operator fun SharedNDArray<U32>.get(vararg index: Long): UInt = getLong(index).toUInt()

/** Stores an element of an U32 array at a full multi-index. */
@JvmName("setU32")
public operator fun SharedNDArray<U32>.set(vararg index: Int, value: UInt): Unit = setLong(index.toIndex(), value.toLong())

/** Stores an element of an U32 array at a full multi-index (Long indices). */
@JvmName("setU32L")
public operator fun SharedNDArray<U32>.set(vararg index: Long, value: UInt): Unit = setLong(index, value.toLong())

/** Element of an U16 array at a full multi-index. */
@JvmName("getU16")
public operator fun SharedNDArray<U16>.get(vararg index: Int): UShort = getLong(index.toIndex()).toUShort()

/** Element of an U16 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getU16L")
public operator fun SharedNDArray<U16>.get(vararg index: Long): UShort = getLong(index).toUShort()

/** Stores an element of an U16 array at a full multi-index. */
@JvmName("setU16")
public operator fun SharedNDArray<U16>.set(vararg index: Int, value: UShort): Unit = setLong(index.toIndex(), value.toLong())

/** Stores an element of an U16 array at a full multi-index (Long indices). */
@JvmName("setU16L")
public operator fun SharedNDArray<U16>.set(vararg index: Long, value: UShort): Unit = setLong(index, value.toLong())

/** Element of an U8 array at a full multi-index. */
@JvmName("getU8")
public operator fun SharedNDArray<U8>.get(vararg index: Int): UByte = getLong(index.toIndex()).toUByte()

/** Element of an U8 array at a full multi-index (Long indices, for axes past 2^31). */
@JvmName("getU8L")
public operator fun SharedNDArray<U8>.get(vararg index: Long): UByte = getLong(index).toUByte()

/** Stores an element of an U8 array at a full multi-index. */
@JvmName("setU8")
public operator fun SharedNDArray<U8>.set(vararg index: Int, value: UByte): Unit = setLong(index.toIndex(), value.toLong())

/** Stores an element of an U8 array at a full multi-index (Long indices). */
@JvmName("setU8L")
public operator fun SharedNDArray<U8>.set(vararg index: Long, value: UByte): Unit = setLong(index, value.toLong())
