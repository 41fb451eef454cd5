// A Rust program whose names exercise both manglings (Fixtures/build.sh builds it twice, with
// `-C symbol-mangling-version=v0` and with the legacy default): nested modules, traits with
// default methods and trait objects, generic structs and functions instantiated with many
// types (tuples, arrays, slices, references with lifetimes, function pointers with binders and
// ABIs, `dyn` with associated types), const generics (integer, negative, bool, char), closures,
// methods of enums, non-ASCII identifiers (punycode in v0, `$u..$` escapes in legacy) and
// inlined helpers. It runs and exits 0; with an argument it panics in `inventory::Ledger::take`.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::{self, Debug, Display};

pub mod geometry {
    pub mod shapes {
        pub trait Area {
            fn area(&self) -> f64;
            fn name(&self) -> String {
                String::from("shape")
            }
            fn describe(&self) -> String {
                format!("{} of area {:.2}", self.name(), self.area())
            }
        }

        #[derive(Debug, Clone, Copy)]
        pub struct Circle {
            pub radius: f64,
        }

        #[derive(Debug, Clone, Copy)]
        pub struct Rect {
            pub width: f64,
            pub height: f64,
        }

        #[derive(Debug, Clone, Copy)]
        pub enum Shape {
            Round(Circle),
            Square(Rect),
            Dot,
        }

        impl Area for Circle {
            #[inline(never)]
            fn area(&self) -> f64 {
                std::f64::consts::PI * self.radius * self.radius
            }
            fn name(&self) -> String {
                String::from("circle")
            }
        }

        impl Area for Rect {
            #[inline(never)]
            fn area(&self) -> f64 {
                self.width * self.height
            }
        }

        impl Shape {
            #[inline(never)]
            pub fn scaled(self, factor: f64) -> Shape {
                match self {
                    Shape::Round(c) => Shape::Round(Circle { radius: c.radius * factor }),
                    Shape::Square(r) => Shape::Square(Rect { width: r.width * factor, height: r.height * factor }),
                    Shape::Dot => Shape::Dot,
                }
            }

            #[inline(never)]
            pub fn corners(&self) -> usize {
                match self {
                    Shape::Square(_) => 4,
                    _ => 0,
                }
            }
        }

        impl Area for Shape {
            #[inline(never)]
            fn area(&self) -> f64 {
                match self {
                    Shape::Round(c) => c.area(),
                    Shape::Square(r) => r.area(),
                    Shape::Dot => 0.0,
                }
            }
        }
    }

    pub mod transform {
        use super::shapes::Area;

        #[inline(always)]
        fn square(x: f64) -> f64 {
            x * x
        }

        #[inline]
        fn weigh<A: Area + ?Sized>(shape: &A) -> f64 {
            square(shape.area()).sqrt()
        }

        #[inline(never)]
        pub fn total_area<A: Area>(shapes: &[A]) -> f64 {
            shapes.iter().map(|s| weigh(s)).sum()
        }

        #[inline(never)]
        pub fn total_dyn(shapes: &[Box<dyn Area>]) -> f64 {
            shapes.iter().map(|s| weigh(s.as_ref())).fold(0.0, |a, b| a + b)
        }

        #[inline(never)]
        pub fn largest<'a, A: Area>(shapes: &'a [A]) -> Option<&'a A> {
            let mut best: Option<&A> = None;
            for shape in shapes {
                if best.map_or(true, |b| b.area() < shape.area()) {
                    best = Some(shape);
                }
            }
            best
        }
    }
}

pub mod inventory {
    use std::collections::BTreeMap;

    #[derive(Debug, Default)]
    pub struct Ledger<K: Ord, V> {
        entries: BTreeMap<K, V>,
        moves: usize,
    }

    impl<K: Ord + Clone + std::fmt::Debug, V: Copy + Default + std::ops::AddAssign + std::ops::SubAssign + PartialOrd>
        Ledger<K, V>
    {
        pub fn new() -> Self {
            Ledger { entries: BTreeMap::new(), moves: 0 }
        }

        #[inline(never)]
        pub fn put(&mut self, key: K, amount: V) {
            *self.entries.entry(key).or_insert_with(V::default) += amount;
            self.moves += 1;
        }

        #[inline(never)]
        pub fn take(&mut self, key: &K, amount: V) -> V {
            let slot = self.entries.get_mut(key).expect("no such entry");
            if *slot < amount {
                panic!("not enough of {:?}", key);
            }
            *slot -= amount;
            self.moves += 1;
            amount
        }

        #[inline(never)]
        pub fn each<F: FnMut(&K, &V)>(&self, mut visit: F) {
            for (k, v) in &self.entries {
                visit(k, v);
            }
        }

        pub fn moves(&self) -> usize {
            self.moves
        }
    }
}

pub trait Codec {
    type Output: Debug;
    fn encode(&self) -> Self::Output;
}

impl Codec for u32 {
    type Output = [u8; 4];
    #[inline(never)]
    fn encode(&self) -> [u8; 4] {
        self.to_le_bytes()
    }
}

impl Codec for &str {
    type Output = Vec<u8>;
    #[inline(never)]
    fn encode(&self) -> Vec<u8> {
        self.bytes().rev().collect()
    }
}

impl<A: Codec, B: Codec> Codec for (A, B) {
    type Output = (A::Output, B::Output);
    #[inline(never)]
    fn encode(&self) -> Self::Output {
        (self.0.encode(), self.1.encode())
    }
}

impl<T: Codec, const N: usize> Codec for [T; N] {
    type Output = Vec<T::Output>;
    #[inline(never)]
    fn encode(&self) -> Self::Output {
        self.iter().map(Codec::encode).collect()
    }
}

pub struct Buffer<const N: usize, const SIGNED: bool, const MARK: char> {
    bytes: [u8; N],
}

impl<const N: usize, const SIGNED: bool, const MARK: char> Buffer<N, SIGNED, MARK> {
    #[inline(never)]
    pub fn new(fill: u8) -> Self {
        Buffer { bytes: [fill; N] }
    }

    #[inline(never)]
    pub fn checksum(&self) -> i64 {
        let sum: i64 = self.bytes.iter().map(|&b| if SIGNED { b as i8 as i64 } else { b as i64 }).sum();
        sum + MARK as i64
    }
}

pub struct Offset<const D: i32>;

impl<const D: i32> Offset<D> {
    #[inline(never)]
    pub fn apply(&self, x: i32) -> i32 {
        x + D
    }
}

#[inline(never)]
fn apply_all<T, F>(items: &mut [T], f: F)
where
    F: Fn(&mut T),
{
    for item in items.iter_mut() {
        f(item);
    }
}

#[inline(never)]
fn call_with_str<F>(f: F, s: &str) -> usize
where
    F: for<'a> Fn(&'a str) -> &'a str,
{
    f(s).len()
}

fn first_word(s: &str) -> &str {
    s.split(' ').next().unwrap_or("")
}

extern "C" fn c_callback(x: u32) -> u32 {
    x.wrapping_mul(2654435761)
}

extern "sysv64" fn sysv_callback(x: u32) -> u32 {
    x ^ 0x5555
}

#[inline(never)]
fn via_pointer<P: Copy>(p: P, call: fn(P, u32) -> u32, x: u32) -> u32 {
    call(p, x)
}

fn call_c(f: extern "C" fn(u32) -> u32, x: u32) -> u32 {
    f(x)
}

fn call_unsafe(f: unsafe extern "C" fn(u32) -> u32, x: u32) -> u32 {
    unsafe { f(x) }
}

unsafe extern "C" fn unsafe_callback(x: u32) -> u32 {
    x.rotate_left(7)
}

fn call_sysv(f: extern "sysv64" fn(u32) -> u32, x: u32) -> u32 {
    f(x)
}

#[inline(never)]
fn sum_iter(it: Box<dyn Iterator<Item = u32> + '_>) -> u32 {
    it.fold(0, |a, b| a.wrapping_add(b))
}

#[inline(never)]
fn debug_all<T: Debug + ?Sized>(value: &T) -> usize {
    format!("{:?}", value).len()
}

#[inline(never)]
fn show<T: Display>(value: T) -> String {
    value.to_string()
}

#[inline(never)]
fn pointer_sum(ptr: *const u32, len: usize) -> u32 {
    let mut total = 0u32;
    for i in 0..len {
        total = total.wrapping_add(unsafe { *ptr.add(i) });
    }
    total
}

#[inline(never)]
fn mutate(ptr: *mut u32) {
    unsafe { *ptr += 1 }
}

pub mod größe {
    #[inline(never)]
    pub fn maß(länge: f64) -> f64 {
        länge * 2.54
    }

    pub struct Straße {
        pub nummer: u32,
    }

    impl Straße {
        #[inline(never)]
        pub fn hausnummer(&self) -> u32 {
            self.nummer + 1
        }
    }
}

struct Wrapper<T>(T);

impl<T: Display> Display for Wrapper<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.0)
    }
}

impl<T> Drop for Wrapper<T> {
    #[inline(never)]
    fn drop(&mut self) {
        std::hint::spin_loop();
    }
}

macro_rules! counters {
    ($($name:ident => $step:expr),* $(,)?) => {
        pub mod counters {
            $(
                #[inline(never)]
                pub fn $name(x: u64) -> u64 {
                    (x.wrapping_mul($step)).rotate_left(($step % 64) as u32) ^ $step
                }
            )*

            pub fn all() -> Vec<fn(u64) -> u64> {
                vec![$($name),*]
            }
        }
    };
}

counters! {
    alpha => 3, beta => 5, gamma => 7, delta => 11, epsilon => 13, zeta => 17, eta => 19, theta => 23,
    iota => 29, kappa => 31, lambda => 37, mu => 41, nu => 43, xi => 47, omicron => 53, pi => 59,
}

#[inline(never)]
fn generic_pair<A: Debug, B: Debug>(a: A, b: B) -> String {
    format!("{:?}/{:?}", a, b)
}

fn shapes_demo() -> f64 {
    use geometry::shapes::{Area, Circle, Rect, Shape};
    use geometry::transform::{largest, total_area, total_dyn};
    let circles = [Circle { radius: 1.0 }, Circle { radius: 2.5 }];
    let rects = vec![Rect { width: 2.0, height: 3.0 }];
    let shapes = [Shape::Round(circles[0]), Shape::Square(rects[0]), Shape::Dot].map(|s| s.scaled(1.5));
    let boxed: Vec<Box<dyn Area>> = vec![Box::new(circles[1]), Box::new(rects[0]), Box::new(shapes[0])];
    let corners: usize = shapes.iter().map(Shape::corners).sum();
    let describe = boxed.iter().map(|b| b.describe().len()).sum::<usize>();
    total_area(&circles) + total_area(&rects) + total_area(&shapes) + total_dyn(&boxed)
        + largest(&shapes).map_or(0.0, |s| s.area())
        + corners as f64
        + describe as f64
}

fn ledger_demo(crash: bool) -> usize {
    let mut ledger: inventory::Ledger<String, i64> = inventory::Ledger::new();
    let mut counts: inventory::Ledger<(u8, char), u32> = inventory::Ledger::new();
    for (i, word) in ["apple", "pear", "plum", "apple"].iter().enumerate() {
        ledger.put(word.to_string(), i as i64 + 1);
        counts.put((i as u8, word.chars().next().unwrap()), 2);
    }
    ledger.take(&"apple".to_string(), 2);
    if crash {
        counts.take(&(9, 'z'), 1);
    }
    let mut seen = 0;
    ledger.each(|k, v| seen += k.len() + *v as usize);
    counts.each(|_, v| seen += *v as usize);
    seen + ledger.moves() + counts.moves()
}

fn codec_demo() -> usize {
    let words = [("alpha", 1u32), ("beta", 2u32)];
    let encoded = words.encode();
    let nested = ((7u32, "x"), [3u32, 4, 5]).encode();
    debug_all(&encoded) + debug_all(&nested) + debug_all(&(0xdeadu32).encode()[..])
}

fn const_demo(seed: u32) -> i64 {
    let a: Buffer<4, true, 'x'> = Buffer::new(200 + seed as u8);
    let b: Buffer<16, false, 'ß'> = Buffer::new(7 + seed as u8);
    let c: Buffer<0, false, '\n'> = Buffer::new(seed as u8);
    let o = Offset::<-3>;
    let p = Offset::<40000>;
    a.checksum() + b.checksum() + c.checksum() + o.apply(seed as i32) as i64 + p.apply(seed as i32 + 1) as i64
}

/// Function pointer types as generic arguments: a binder (`for<'a>`), ABIs, `unsafe`.
fn pointer_type_demo(seed: u32) -> u32 {
    let c: extern "C" fn(u32) -> u32 = c_callback;
    let sysv: extern "sysv64" fn(u32) -> u32 = sysv_callback;
    let unsafe_c: unsafe extern "C" fn(u32) -> u32 = unsafe_callback;
    let word: for<'a> fn(&'a str) -> &'a str = first_word;
    via_pointer(c, |f, x| f(x), seed)
        + via_pointer(sysv, |f, x| f(x), seed)
        + via_pointer(unsafe_c, |f, x| unsafe { f(x) }, seed)
        + via_pointer(word, |f, x| f("two words").len() as u32 + x, seed)
}

fn pointer_demo() -> u32 {
    let mut values = [1u32, 2, 3, 4];
    mutate(&mut values[2]);
    apply_all(&mut values, |v| *v *= 3);
    let mut words = vec![String::from("a"), String::from("bc")];
    apply_all(&mut words, |w| w.push('!'));
    let total = pointer_sum(values.as_ptr(), values.len());
    let callbacks = via_pointer(5u32, |p, x| p + x, 10)
        + via_pointer((1u8, 2u16), |p, x| p.0 as u32 + p.1 as u32 + x, 1)
        + call_c(c_callback, 3)
        + call_unsafe(unsafe_callback, 4)
        + call_sysv(sysv_callback, 5);
    let lengths = call_with_str(first_word, "hello world") as u32 + call_with_str(|s| s.trim(), "  x ") as u32;
    let iter_sum = sum_iter(Box::new(values.iter().copied().filter(|v| v % 2 == 0)))
        + sum_iter(Box::new((0..10u32).map(|x| x * x)));
    total + callbacks + lengths + iter_sum + words.len() as u32
}

fn main() {
    let crash = std::env::args().count() > 1;
    let mut acc = shapes_demo() as u64;
    acc += ledger_demo(crash) as u64;
    acc += codec_demo() as u64;
    acc = acc.wrapping_add(const_demo(crash as u32) as u64);
    acc += pointer_type_demo(std::env::args().count() as u32) as u64;
    acc += pointer_demo() as u64;
    acc += größe::maß(3.0) as u64 + größe::Straße { nummer: 41 }.hausnummer() as u64;
    for f in counters::all() {
        acc = f(acc);
    }
    let wrapped = Wrapper(acc % 1000);
    let text = show(&wrapped) + &show(Wrapper("w")) + &generic_pair(Some(1u8), [0.5f32; 2]);
    let table: BTreeMap<&str, usize> = [("text", text.len()), ("acc", (acc % 97) as usize)].into_iter().collect();
    println!("{} {}", generic_pair(&text, &table), debug_all(&table));
}
