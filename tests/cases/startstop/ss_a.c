#include "item.h"

ITEM(apple, 1);
ITEM(banana, 20);
