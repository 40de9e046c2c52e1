package dev.sharedarrays.dsl

import dev.sharedarrays.DType
import dev.sharedarrays.F32
import dev.sharedarrays.F64
import dev.sharedarrays.I16
import dev.sharedarrays.I32
import dev.sharedarrays.I64
import dev.sharedarrays.I8
import dev.sharedarrays.U16
import dev.sharedarrays.U32
import dev.sharedarrays.U64
import dev.sharedarrays.U8
import kotlin.reflect.KClass

/** The element-type instance for a marker class: `dtypeOf<F64>() === F64.TYPE`. */
public inline fun <reified T : DType<T>> dtypeOf(): T = dtypeOf(T::class)

/** The element-type instance for a marker class. */
@Suppress("UNCHECKED_CAST")
public fun <T : DType<T>> dtypeOf(type: KClass<T>): T = when (type) {
    F64::class -> F64.TYPE
    F32::class -> F32.TYPE
    I64::class -> I64.TYPE
    I32::class -> I32.TYPE
    I16::class -> I16.TYPE
    I8::class -> I8.TYPE
    U64::class -> U64.TYPE
    U32::class -> U32.TYPE
    U16::class -> U16.TYPE
    U8::class -> U8.TYPE
    else -> throw IllegalArgumentException("${type.qualifiedName} is not an element type; use F64, F32, I64, I32, I16, I8, U64, U32, U16 or U8")
} as T
