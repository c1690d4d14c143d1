import JewzruxinPrimitives

/// The package's lock (declared in the `JewzruxinPrimitives` target, which the sandbox shares): named
/// here so that every folder of the module, and the package's modules built on it, use it without
/// importing the primitives.
package typealias Locked<LockedValue> = JewzruxinPrimitives.Locked<LockedValue>
