#if !OpenAPI
/// Stands in for this type when the package is built without its trait `OpenAPI` (this module's
/// other files are empty then), so that a project naming the product but not the trait is told
/// what to do rather than "cannot find in scope".
@available(*, unavailable, message: "JewzruxinOpenAPI needs the package trait \"OpenAPI\": .package(url: …, from: …, traits: [\"OpenAPI\"])")
public struct JewzruxinClientTransport {}
#endif
