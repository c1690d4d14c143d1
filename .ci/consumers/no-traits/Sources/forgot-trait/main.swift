import JewzruxinLogging

print(LoggingMonitor.self)
