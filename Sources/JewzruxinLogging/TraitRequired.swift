#if !Logging
/// Stands in for this type when the package is built without its trait `Logging` (this module's
/// other files are empty then), so that a project naming the product but not the trait is told
/// what to do rather than "cannot find in scope".
@available(*, unavailable, message: "JewzruxinLogging needs the package trait \"Logging\": .package(url: …, from: …, traits: [\"Logging\"])")
public final class LoggingMonitor {}
#endif
