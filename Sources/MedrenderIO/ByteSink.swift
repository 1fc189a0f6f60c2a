/// Where an encoder's bytes go.
public protocol ByteSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws(IOError)
}

extension AtomicOutputFile: ByteSink {}

extension ByteSink {
    /// Writes all of `bytes`.
    public func write(bytes: [UInt8], count: Int? = nil) throws(IOError) {
        do {
            try bytes.withUnsafeBytes { raw in try self.write(UnsafeRawBufferPointer(rebasing: raw[0..<(count ?? bytes.count)])) }
        } catch let error as IOError {
            throw error
        } catch {
            throw IOError(.io, "writing failed", cause: "\(error)")
        }
    }
}
