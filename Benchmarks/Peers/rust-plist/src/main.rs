//! `rust-plist-read FILE RUNS`: reads FILE's bytes once, then decodes them
//! into `plist::Value` once to warm up and RUNS times timed, each from the
//! same bytes in memory (as the harness's own side does), and prints one line
//! per timed run: its wall time and this thread's CPU time, in nanoseconds.
//! The decoded value is dropped after the clock stops, as on ICTKit's side.
use std::io::Cursor;
use std::time::Instant;

fn thread_cpu_nanoseconds() -> u128 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    now.tv_sec as u128 * 1_000_000_000 + now.tv_nsec as u128
}

fn decode(bytes: &[u8]) -> plist::Value {
    match plist::Value::from_reader(Cursor::new(bytes)) {
        Ok(value) => value,
        Err(error) => {
            eprintln!("rust-plist-read: {error}");
            std::process::exit(1);
        }
    }
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    if arguments.len() != 3 {
        eprintln!("usage: rust-plist-read FILE RUNS");
        std::process::exit(64);
    }
    let bytes = std::fs::read(&arguments[1]).unwrap_or_else(|error| {
        eprintln!("rust-plist-read: {}: {error}", arguments[1]);
        std::process::exit(1);
    });
    let runs: usize = arguments[2].parse().unwrap_or(7);
    let warm_up = decode(&bytes);
    let entries = warm_up.as_dictionary().map(|dictionary| dictionary.len()).unwrap_or(0);
    eprintln!("rust-plist-read: {} top-level entries", entries);
    drop(warm_up);
    for _ in 0..runs {
        let start_cpu = thread_cpu_nanoseconds();
        let start = Instant::now();
        let value = decode(&bytes);
        let wall = start.elapsed().as_nanos();
        let cpu = thread_cpu_nanoseconds() - start_cpu;
        std::hint::black_box(&value);
        drop(value);
        println!("{wall} {cpu}");
    }
}
