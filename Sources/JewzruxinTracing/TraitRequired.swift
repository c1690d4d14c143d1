#if !Tracing
/// Stands in for this type when the package is built without its trait `Tracing` (this module's
/// other files are empty then), so that a project naming the product but not the trait is told
/// what to do rather than "cannot find in scope".
@available(*, unavailable, message: "JewzruxinTracing needs the package trait \"Tracing\": .package(url: …, from: …, traits: [\"Tracing\"])")
public final class TracingMonitor {}
#endif
