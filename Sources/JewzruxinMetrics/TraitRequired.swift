#if !Metrics
/// Stands in for this type when the package is built without its trait `Metrics` (this module's
/// other files are empty then), so that a project naming the product but not the trait is told
/// what to do rather than "cannot find in scope".
@available(*, unavailable, message: "JewzruxinMetrics needs the package trait \"Metrics\": .package(url: …, from: …, traits: [\"Metrics\"])")
public final class MetricsMonitor {}
#endif
