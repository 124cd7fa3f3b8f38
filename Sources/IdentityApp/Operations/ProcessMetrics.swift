import BuildInfo
import Foundation
import Prometheus
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The process's own series, read from `/proc/self` at each scrape: CPU time, resident and virtual
/// memory, open and allowed file descriptors, threads, start time, and `idconnect_build_info`.
/// Named as Prometheus's client libraries name them, so standard dashboards find them.
/// Off Linux (no `/proc`) they stay at zero.
final class ProcessMetrics: Sendable {
    private let cpu: Counter
    private let resident: Gauge
    private let virtualMemory: Gauge
    private let openFiles: Gauge
    private let maxFiles: Gauge
    private let threads: Gauge
    private let startTime: Gauge
    /// CPU seconds already added to `cpu` (a counter only grows by increments).
    private let cpuCounted = Mutex<Double>(0)

    init(registry: PrometheusCollectorRegistry) {
        func gauge(_ name: String) -> Gauge { registry.makeGauge(name: name, labels: [], help: MetricHelp.text(name)) }
        cpu = registry.makeCounter(name: "process_cpu_seconds_total", labels: [], help: MetricHelp.text("process_cpu_seconds_total"))
        resident = gauge("process_resident_memory_bytes")
        virtualMemory = gauge("process_virtual_memory_bytes")
        openFiles = gauge("process_open_fds")
        maxFiles = gauge("process_max_fds")
        threads = gauge("process_threads")
        startTime = gauge("process_start_time_seconds")
        registry.makeGauge(name: "idconnect_build_info", labels: [("version", BuildInfo.version), ("commit", BuildInfo.commit)],
                           help: MetricHelp.text("idconnect_build_info")).set(to: 1)
        if let stat = Self.stat() { startTime.set(to: stat.startTime) }
    }

    /// Reads `/proc/self` and sets every series.
    func update() {
        if let stat = Self.stat() {
            let added = cpuCounted.withLock { counted -> Double in
                let delta = max(0, stat.cpuSeconds - counted)
                counted += delta
                return delta
            }
            if added > 0 { cpu.increment(by: added) }
            resident.set(to: stat.residentBytes)
            virtualMemory.set(to: stat.virtualBytes)
            threads.set(to: stat.threads)
        }
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            openFiles.set(to: Double(entries.count))
        }
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 { maxFiles.set(to: Double(limit.rlim_cur)) }
    }

    /// The fields of `/proc/self/stat` the series use (proc(5)).
    struct Stat {
        var cpuSeconds: Double
        var residentBytes: Double
        var virtualBytes: Double
        var threads: Double
        var startTime: Double
    }

    static func stat() -> Stat? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8) else { return nil }
        return parse(stat: text, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))), pageSize: Double(sysconf(Int32(_SC_PAGESIZE))),
                     bootTime: bootTime())
    }

    /// Parses a `/proc/<pid>/stat` line. The command name (field 2) may hold spaces and
    /// parentheses, so fields are counted from the last `)`.
    static func parse(stat text: String, ticksPerSecond: Double, pageSize: Double, bootTime: Double) -> Stat? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        // After ")": field 3 (state) is at index 0.
        let fields = text[text.index(after: close)...].split(separator: " ")
        func field(_ number: Int) -> Double? { number - 3 < fields.count ? Double(fields[number - 3]) : nil }
        guard let user = field(14), let system = field(15), let threads = field(20), let start = field(22),
              let virtualBytes = field(23), let residentPages = field(24), ticksPerSecond > 0 else { return nil }
        return Stat(cpuSeconds: (user + system) / ticksPerSecond, residentBytes: residentPages * pageSize,
                    virtualBytes: virtualBytes, threads: threads, startTime: bootTime + start / ticksPerSecond)
    }

    /// When the machine booted (`btime` of `/proc/stat`), in seconds since the Unix epoch.
    private static func bootTime() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let value = Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) else { return 0 }
        return value
    }
}
