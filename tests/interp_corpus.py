# Hand-written programs for tests/differential_interp.rs: each `#### name` line starts one;
# every program's output and exception must match CPython's.
#### generators and iterators
g = (x * x for x in range(5))
print(next(g), list(zip(g, g)), list(g))
it = iter([1, 2, 3])
print(list(enumerate(it)), next(it, 'done'))
print(list(map(lambda a, b: a + b, [1, 2, 3], (10, 20))))
print(list(filter(lambda s: s.isdigit(), ['1', 'a', '22'])))
print(list(reversed(range(3))), list(reversed('abc')), list(reversed((1, 2))))
print(sum([[1], [2, 3]], []), min('hello'), max([3, 1], default=0), min([], default='none'))

#### dicts
d = {'b': 2, 'a': 1}
d.update(c=3)
d.update([('d', 4)])
print(d, list(d.keys()), list(d.values()), list(d.items()))
print(d.pop('a'), d.pop('zz', None), d.setdefault('e', 5), d.setdefault('b', 9), d)
print(max(d, key=d.get), sorted(d, key=lambda k: -d[k]), 'b' in d, 2 in d, len(d))
del d['b']
print(d, d.popitem(), d)
try:
    d['missing'] += 1
except KeyError as e:
    print('KeyError', e, repr(e), e.args)
counts = {}
for ch in 'mississippi':
    counts[ch] = counts.get(ch, 0) + 1
print(counts, sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
print({(1, 2): 'a', 1.0: 'b', True: 'c', None: 'd'})
print(dict.fromkeys if False else 'skip', {**d, 'z': 0}, d | {'y': 1})
ks = d.keys()
d['new'] = 1
print(ks, len(ks))

#### exceptions: nesting, finally, re-raise
def f(x):
    try:
        try:
            if x == 0:
                raise ValueError('zero')
            return 10 // (x - 1)
        finally:
            print('inner finally', x)
    except ZeroDivisionError as e:
        print('div', e)
        return 'div'
    except:
        print('bare')
        raise
    finally:
        print('outer finally')
for x in (0, 1, 2):
    try:
        print('result', f(x))
    except ValueError as e:
        print('escaped', e)
def g():
    for i in range(3):
        try:
            if i == 1:
                continue
            if i == 2:
                return 'ret'
        finally:
            print('fin', i)
print(g())
def h():
    try:
        raise KeyError('k')
    finally:
        return 'swallowed'
print(h())
try:
    try:
        1 / 0
    except ZeroDivisionError:
        raise ValueError('during handling')
except ValueError as e:
    print(type(e).__name__, e)
try:
    raise IndexError
except LookupError as e:
    print(repr(e), str(e) == '', e.args)

#### strings
s = 'Hello, World'
print(s.lower().count('l'), s.find('o', 5), s.rfind('o'), s.index('W'), s[::-3], s[-5:-1])
print(s.split(', '), s.partition(','), s.rpartition('o'), s.startswith(('He', 'x')), s.endswith('ld', 0, 5))
print('  a  '.strip(), 'xxaxx'.strip('x'), 'a-b-c'.replace('-', '+', 1), 'abc'.center(8, '.'), '7'.zfill(4), '-7'.zfill(4))
print('one two  three'.split(None, 1), 'a b c'.rsplit(' ', 1), 'l1\nl2\r\nl3'.splitlines(), 'tab\tx'.expandtabs(4))
print('hello world'.title(), 'ABC'.swapcase(), 'abc'.capitalize(), 'ß'.upper(), 'İ'.lower() == 'i̇')
print(','.join(map(str, range(5))), 'x'.join('abc'), 'abc' < 'abd', 'a' * 0, 'ab' in 'cabd')
print(repr('quote\'s'), repr("both ' and \""), repr('\x00\x7f\u00e9'), ascii('é'))
print(f"{'nested'!r:>12}|{3.14159:8.3f}|{42:#06x}|{1234567.891:,.2f}|{0.000123:.2e}|{-5:+}|{True}|{None!s}")
print('%s %r %d %5.2f %-5s| %x %o %e %g %%' % ('s', 's', 42, 3.14159, 'ab', 255, 8, 1234.5, 0.00001))
print('{0} {1} {0}'.format('a', 'b'), '{:>{}}'.format('x', 4), '{name}!'.format(name='N'), '{0[1]}'.format([5, 6]))
print(len('añb'), 'añb'[::-1], 'añb'.upper(), ord('ñ'), chr(241), 'a\u0301'.isalpha())

#### numbers
print(7 / 2, 7 // 2, -7 // 2, 7 % -3, -7 % 3, 2 ** 10, 2 ** -2, (-2) ** 3, (-8) ** 2, 10 ** 20)
print(0.1 + 0.2, 1e16, 1e15, 1 / 3, 2 / 3, 1e-5, 123456789.123456789, -0.0, 1e300 * 1e10, -1e300 * 1e10)
print(round(0.5), round(1.5), round(-0.5), round(2.675, 2), round(1e20), round(123.456, -1), round(5, -1), round(15, -1))
print(int('  42  '), int('-0b101', 0), int('ff', 16), int('0o17', 8), int(-3.99), float('  -1.5e3 '), float('inf'), float('-nan'))
print(abs(-5), abs(-5.5), abs(True), divmod(-7, 2), divmod(7.5, -2), pow(2, 100, 1000), pow(7, -1, 13), pow(2.0, 3))
print(max(1, 2.5), min(-1, -1.0), 3 == 3.0, 2 ** 53 + 1 == float(2 ** 53 + 1), 10 ** 30 < 1e30, 10 ** 30 == 1e30)
print(1 << 100, -1 >> 5, 5 & -3, 5 | 2, 5 ^ 1, ~0, ~-1, True & False, True | False, True ^ True)
print(hex(-255), oct(8), bin(0), (255).bit_length(), (-1).bit_length(), 3.0.is_integer(), (0.5).is_integer())
print(int(1e18), int(1.5e19), 2 ** 0.5, 10 ** -2, 9 ** 0.5, 0 ** 0, 0.0 ** 0, float(10 ** 20))
print(sum([0.1] * 10), sum([1, 2], 10), sum(range(101)), 1_000_000, 0xff, 0o17, 0b11)
print(isinstance(1, int), isinstance(True, int), isinstance(1.0, (int, float)), type(1 / 1), type(1 // 1), type(True + 1))

#### lists
a = [5, 3, 8, 1]
b = a
a.sort()
print(a, b, a is b)
c = a[:]
c.append(9)
print(a, c)
a[1:3] = []
print(a)
a[::2] = ['x']
print(a)
try:
    a[::2] = [1, 2, 3]
except ValueError as e:
    print(e)
del a[::2]
print(a)
m = [[0] * 2] * 2
m[0][0] = 1
print(m)
n = [[0] * 2 for _ in range(2)]
n[0][0] = 1
print(n)
x = [3, 1, 2]
print(sorted(x, reverse=True), x, x.index(2), x.count(3), x.insert(1, 7), x, x.pop(1), x.remove(3), x)
x.extend('ab')
x += (5,)
print(x)
words = ['banana', 'Apple', 'cherry', 'apple']
print(sorted(words), sorted(words, key=str.lower), sorted(words, key=len, reverse=True))
try:
    sorted([1, 'a', 2])
except TypeError as e:
    print(e)
print([1, 2] * 2, [] * 3, [0] * -1, [1, [2]] == [1, [2]], [1, 2] < [1, 2, 0], (1, 'a') < (1, 'b'))
t = (1, 2, 3)
print(t[1:], t[::-1], t + (4,), t * 2, t.index(2), t.count(9), len(t), (1,), ())
first, *rest = 'hello'
print(first, rest)
(p, q), r = (1, 2), 3
print(p, q, r)
for i, (k, v) in enumerate([('a', 1), ('b', 2)]):
    print(i, k, v)

#### functions
def append_to(x, acc=[]):
    acc.append(x)
    return acc
print(append_to(1), append_to(2))
def make_adders():
    return [lambda x, i=i: x + i for i in range(3)]
print([f(10) for f in make_adders()])
def outer():
    total = 0
    def add(n):
        nonlocal total
        total += n
        return total
    add(1)
    add(2)
    return total
print(outer())
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
print(fact(30))
def is_even(n):
    return True if n == 0 else is_odd(n - 1)
def is_odd(n):
    return False if n == 0 else is_even(n - 1)
print(is_even(10), is_odd(7))
def kw(a, b=2, *args, c, d=4, **kwargs):
    return a, b, args, c, d, kwargs
print(kw(1, c=3), kw(1, 2, 3, 4, c=5, e=6))
for args, kwargs in [((), {}), ((1,), {}), ((1, 2), {'c': 3, 'a': 4}), ((1,), {'c': 1, 'c2': 2, 'f': 3})]:
    try:
        print(kw(*args, **kwargs))
    except TypeError as e:
        print(e)
def pos(a, b, /, c):
    return a + b + c
print(pos(1, 2, c=3))
try:
    pos(1, b=2, c=3)
except TypeError as e:
    print(e)
print((lambda *a, **k: (a, k))(1, x=2))
def deco(f):
    def wrapper(*a):
        print('calling', f.__name__)
        return f(*a) * 2
    return wrapper
@deco
def sq(x):
    return x * x
print(sq(3))

#### globals, del, scoping
x = 10
def read():
    return x
def write():
    global x
    x = 20
print(read())
write()
print(read(), x)
def local_shadow():
    x = 5
    return x
print(local_shadow(), x)
y = 1
del y
try:
    print(y)
except NameError as e:
    print(e)
def unbound():
    print(z)
    z = 1
try:
    unbound()
except UnboundLocalError as e:
    print(e)
lst = [1, 2, 3]
del lst[0], lst[-1]
print(lst)
[v * 2 for v in range(3)]
try:
    print(v)
except NameError as e:
    print('comprehension variable does not leak:', e)
if (n := len(lst)) > 0:
    print('walrus', n)
print([m := 5, m * 2])

#### loops with else
for i in range(3):
    for j in range(3):
        if j == 2:
            break
        print(i, j, end='; ')
    else:
        print('never')
print()
n = 0
while n < 10:
    n += 3
    if n == 6:
        continue
    print(n)
else:
    print('done', n)
for ch in 'abc':
    pass
print(ch)
for i in []:
    pass
else:
    print('empty else')
i = 0
while True:
    i += 1
    if i > 100:
        break
print(i)

#### print and repr
import sys
print()
print('a', 'b', sep='')
print('no newline', end='')
print(' then', 1, 2.0, None, True, [None], (1,), {'k': (2, [3])}, sep=' | ')
print(*[1, 2, 3], sep=', ')
print(repr(1.0), repr(-0.0), str(1e-7), repr(1e22), repr(123e-30), 1e16, 12345678901234567.0)
print(type(None), type(len), type(print), type(lambda: 0) is type(sq) if False else 'f', type(range(1)), type([].append) if False else 'm')
print(range(5), range(1, 5), range(0, 10, 3), list(range(0, -10, -3)), len(range(0, 10, 3)), range(10)[3:7], range(10)[-1])
print(bool(''), bool(' '), bool(0.0), bool([0]), bool(None), bool(range(0)), not [], [] or 'x', 0 and 1, '' or 0)
print(ValueError, ValueError('m'), repr(KeyError('k')), str(KeyError('k')), repr(Exception()), Exception(1, 'a'))
print(str(1/3), 3 * 0.1, 1.1 * 1.1, 100.0, 1e100, float('1e-320'), 2.5e-5, 9007199254740993.0)

#### numeric formatting
for v in [0, 1, -1, 123456789, 2 ** 64, -(10 ** 12)]:
    print(f'{v:d}|{v:>12,}|{v:_b}' if abs(v) < 100 else f'{v:d}|{v:>30,}|{v:e}|{v:x}')
for f in [0.0, -0.0, 1.5, -2.25, 1e-10, 123456.789, 1e21, float('inf'), float('-inf'), float('nan')]:
    print(f'{f}|{f:.2f}|{f:.3e}|{f:g}|{f:.4g}|{f:10.1%}|{f:+}|{f:.0f}')
print(format(1234.5678, ',.2f'), format(0.1, '.20f'), format(5e-324, 'g'), format(1e-5, ''), format(255, 'X'), format(65, 'c'))
print('%(a)s and %(b)05.1f' % {'a': 'x', 'b': 2.345}, '%c%c' % (72, 'i'), '%10.3s|' % 'abcdef', '%-+6d|' % 5, '%#o %#x' % (8, 255))

#### aliasing and equality
a = b = []
a.append(1)
print(b)
x = [1, 2, 3]
y = x
x = x + [4]
print(x, y)
x = y
x += [4]
print(x, y)
s = 'abc'
t = s
s += 'd'
print(s, t)
t1 = (1, [2])
t1[1].append(3)
print(t1)
try:
    t1[1] += [4]
except TypeError as e:
    print(e)
print(t1)
d = {}
d[1] = 'int'
d[1.0] = 'float'
d[True] = 'bool'
print(d)
print(1 == True, 0 == False, True + True, [True] * 2, 'a' * True, -False)
print(0 < 1 < 2 > 1, 1 < 3 < 2, (1 < 3) < 2, not 1 == 2, None is not None)
