package dev.sharedarrays.dsl

import dev.sharedarrays.DType
import kotlin.reflect.KClass

/** The element-type instance for a marker class: `dtypeOf<F64>() === F64.TYPE`. */
public inline fun <reified T : DType<T>> dtypeOf(): T = dtypeOf(T::class)

/** The element-type instance for a marker class, looked up in the library's one table of element types. */
@Suppress("UNCHECKED_CAST")
public fun <T : DType<T>> dtypeOf(type: KClass<T>): T {
    val all = DType.all()
    return (all.firstOrNull { it::class == type } ?: throw IllegalArgumentException(
        "${type.qualifiedName} is not an element type; use " +
            all.dropLast(1).joinToString { it.name() } + " or " + all.last().name(),
    )) as T
}
