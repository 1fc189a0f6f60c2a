/// Where an encoder's bytes go.
public protocol ByteSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws(IOError)
}

extension AtomicOutputFile: ByteSink {}
