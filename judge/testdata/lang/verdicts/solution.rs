// See solution.py: add, and add_* misbehaving one way each.
use std::fmt;

pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

pub fn add_wrong(a: i64, b: i64) -> i64 {
    a - b
}

pub fn add_crash(_a: i64, _b: i64) -> i64 {
    std::process::abort()
}

#[derive(Debug)]
pub struct NoSuchCase;

impl fmt::Display for NoSuchCase {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "no such case")
    }
}

pub fn add_throw(_a: i64, _b: i64) -> Result<i64, NoSuchCase> {
    Err(NoSuchCase)
}

pub fn add_spin(_a: i64, _b: i64) -> i64 {
    let mut i: u64 = 0;
    loop {
        unsafe { std::ptr::write_volatile(&mut i, i + 1) };
    }
}

pub fn add_hog(_a: i64, _b: i64) -> i64 {
    let mut keep = Vec::new();
    for _ in 0..64 {
        keep.push(vec![1u8; 16 << 20]);
    }
    keep.len() as i64
}

pub fn add_chatty(a: i64, b: i64) -> i64 {
    println!("chatty: {} + {}", a, b);
    a + b
}

tether_export!(add, add_wrong, add_crash, add_throw, add_spin, add_hog, add_chatty);
