export default Queue

function Queue(initial = []) {
  let xs = initial.slice()
  let index = 0

  return {
    get length() {
      return xs.length - index
    },
    remove: (x) => {
      const at = xs.indexOf(x, index) // patched: skip the slots shift() emptied
      return at === -1 // patched
        ? null
        : (xs.splice(at, 1), x) // patched
    },
    push: (x) => (xs.push(x), x),
    shift: () => {
      const out = xs[index++]

      if (index === xs.length) {
        index = 0
        xs = []
      } else if (index >= 64 && index * 2 >= xs.length) { // patched: drop emptied slots
        xs = xs.slice(index) // patched
        index = 0 // patched
      } else {
        xs[index - 1] = undefined
      }

      return out
    }
  }
}
