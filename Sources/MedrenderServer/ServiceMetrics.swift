import Foundation

/// What `GET /metrics` reports, in Prometheus' text format: requests by route and status,
/// renders running and queued, the render cache's hits, misses and size, render seconds and bytes
/// sent. Counters only grow; safe to share between tasks.
// `@unchecked`: every counter is read and written under `lock` only.
final class ServiceMetrics: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [String: [Int: Int]] = [:]
    private var cacheHits = 0
    private var cacheMisses = 0
    private var renderSeconds = 0.0
    private var rendersDone = 0
    private var bytesSent: Int64 = 0
    private var connectionsRefused = 0
    private var stoppedByPass: [Int: Int] = [:]
    private var renderThreads: [Int: Int] = [:]
    private var joinedRenders = 0

    func request(route: String, status: Int) { lock.withLock { requests[route, default: [:]][status, default: 0] += 1 } }
    func hit() { lock.withLock { cacheHits += 1 } }
    func miss() { lock.withLock { cacheMisses += 1 } }
    func rendered(seconds: Double) { lock.withLock { renderSeconds += seconds; rendersDone += 1 } }
    func sent(_ bytes: Int) { lock.withLock { bytesSent += Int64(bytes) } }
    func refusedConnection() { lock.withLock { connectionsRefused += 1 } }
    /// A render stopped because every reader left, in `pass` (0 before pass 1 began).
    func stopped(pass: Int) { lock.withLock { stoppedByPass[pass, default: 0] += 1 } }
    /// A render's thread started (from nil), went on to another pass, or ended (to nil).
    func renderThread(from: Int?, to: Int?) {
        lock.withLock {
            if let from { renderThreads[from, default: 0] -= 1 }
            if let to { renderThreads[to, default: 0] += 1 }
        }
    }
    /// A request read a render another request had started.
    func joined() { lock.withLock { joinedRenders += 1 } }

    /// The exposition text, with the gauges given by the caller.
    func text(running: Int, queued: Int, cacheEntries: Int, cacheBytes: Int64, soundBytes: Int, connections: Int) -> String {
        lock.withLock {
            var out = ""
            func metric(_ name: String, _ type: String, _ help: String, _ lines: [String]) {
                out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
                for line in lines { out += line + "\n" }
            }
            var lines: [String] = []
            for route in requests.keys.sorted() {
                for status in requests[route]!.keys.sorted() {
                    lines.append("medrender_requests_total{route=\"\(route)\",status=\"\(status)\"} \(requests[route]![status]!)")
                }
            }
            metric("medrender_requests_total", "counter", "Requests answered, by route and status.", lines)
            metric("medrender_renders_running", "gauge", "Renders running now.", ["medrender_renders_running \(running)"])
            metric("medrender_renders_queued", "gauge", "Renders waiting for a place.", ["medrender_renders_queued \(queued)"])
            metric("medrender_renders_total", "counter", "Renders finished.", ["medrender_renders_total \(rendersDone)"])
            metric("medrender_render_threads", "gauge",
                   "Render threads working now, by the pass they are in (0: preparing); a stopped render's thread ends at its next block.",
                   (0...3).map { "medrender_render_threads{pass=\"\($0)\"} \(renderThreads[$0] ?? 0)" })
            metric("medrender_renders_stopped_total", "counter", "Renders stopped because every client left, by the pass they were in.",
                   (stoppedByPass.isEmpty ? [1] : stoppedByPass.keys.sorted()).map {
                       "medrender_renders_stopped_total{pass=\"\($0)\"} \(stoppedByPass[$0] ?? 0)"
                   })
            metric("medrender_renders_joined_total", "counter", "Requests that read a render another request had started.",
                   ["medrender_renders_joined_total \(joinedRenders)"])
            metric("medrender_render_seconds_total", "counter", "Wall-clock seconds spent rendering.",
                   ["medrender_render_seconds_total \(String(format: "%.3f", renderSeconds))"])
            metric("medrender_cache_hits_total", "counter", "Renders served from the render cache.", ["medrender_cache_hits_total \(cacheHits)"])
            metric("medrender_cache_misses_total", "counter", "Renders not in the render cache.", ["medrender_cache_misses_total \(cacheMisses)"])
            metric("medrender_cache_entries", "gauge", "Entries in the render cache.", ["medrender_cache_entries \(cacheEntries)"])
            metric("medrender_cache_bytes", "gauge", "Bytes in the render cache.", ["medrender_cache_bytes \(cacheBytes)"])
            metric("medrender_sound_cache_bytes", "gauge", "Bytes of decoded sounds held in memory.", ["medrender_sound_cache_bytes \(soundBytes)"])
            metric("medrender_bytes_sent_total", "counter", "Response body bytes sent.", ["medrender_bytes_sent_total \(bytesSent)"])
            metric("medrender_connections", "gauge", "Open connections.", ["medrender_connections \(connections)"])
            metric("medrender_connections_refused_total", "counter", "Connections answered 503 past the connection limit.",
                   ["medrender_connections_refused_total \(connectionsRefused)"])
            return out
        }
    }
}
