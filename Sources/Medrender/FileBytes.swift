import MedrenderCore
import MedrenderIO

/// Bytes to an open file for the faces that hold no MedrenderIO types (the server's render cache):
/// the same checked write loop the renderer's own outputs use (`StreamOutput.writeAll`).
public enum FileBytes {
    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes; a failure (disk
    /// full, a size limit) is an I/O `RenderError` that names `path` and says how to fix it.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(RenderError) {
        do {
            try bytes.withUnsafeBytes { try StreamOutput.writeAll($0, to: descriptor, name: path) }
        } catch {
            throw RenderError("\(error)", category: .io)
        }
    }
}
