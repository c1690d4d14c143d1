#if !HTTPTypes
/// Stands in for this type when the package is built without its trait `HTTPTypes` (this module's
/// other files are empty then), so that a project naming the product but not the trait is told
/// what to do rather than "cannot find in scope".
@available(*, unavailable, message: "JewzruxinHTTPTypes needs the package trait \"HTTPTypes\": .package(url: …, from: …, traits: [\"HTTPTypes\"])")
public enum HTTPTypesConversionError {}

/// Stands in for this type when the package is built without its trait `HTTPTypes` (this module's
/// other files are empty then), so that a project naming the product but not the trait is told
/// what to do rather than "cannot find in scope".
@available(*, unavailable, message: "JewzruxinHTTPTypes needs the package trait \"HTTPTypes\": .package(url: …, from: …, traits: [\"HTTPTypes\"])")
public struct StreamedResponseBody {}
#endif
