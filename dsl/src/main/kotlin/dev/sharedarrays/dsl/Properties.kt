package dev.sharedarrays.dsl

import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray

// numpy's attributes as Kotlin properties: a.shape, a.size, a.dtype. (a.isContiguous is
// Kotlin's own property for the Java getter; a.handle is in Attach.kt.)

/** A copy of the shape. */
public val SharedNDArray<*>.shape: LongArray get() = shape()

/** A copy of the strides, in elements (negative for reversed axes). */
public val SharedNDArray<*>.strides: LongArray get() = strides()

/** Number of elements. */
public val SharedNDArray<*>.size: Long get() = size()

/** Number of dimensions. */
public val SharedNDArray<*>.ndim: Int get() = ndim()

/** The element type marker, such as `F64.TYPE`. */
public val <T : DType<T>> SharedNDArray<T>.dtype: T get() = dtype()
