package dev.sharedarrays.dsl

/**
 * Marks the receivers of the DSL's blocks, so that a nested block cannot call the factories of
 * an outer scope by accident (Kotlin's [DslMarker]).
 */
@DslMarker
@Target(AnnotationTarget.CLASS, AnnotationTarget.TYPE)
public annotation class SharedArraysDsl
