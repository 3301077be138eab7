//! The `hsg` command line.
fn main() {}
