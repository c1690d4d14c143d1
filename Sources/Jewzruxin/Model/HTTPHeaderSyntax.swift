import JewzruxinPrimitives

/// The byte-level rules of HTTP field names and tokens (RFC 9110 §5), shared by the request checks,
/// every transport that parses or writes a head itself, and the sandbox: declared in the
/// `JewzruxinPrimitives` target, named here for the module.
typealias HTTPHeaderSyntax = JewzruxinPrimitives.HTTPHeaderSyntax
